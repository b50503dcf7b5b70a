-- The console database (referee/console.py build): moderator-facing tables only, with
-- Japanese column names (the titles are in metadata.toml).
CREATE TABLE tables (
    "テーブル" TEXT PRIMARY KEY,
    "ゲーム" TEXT,
    "ハンド数" INTEGER NOT NULL,
    "最初のハンド" TEXT,
    "最後のハンド" TEXT
);
CREATE TABLE bank (
    "プレイヤー" TEXT PRIMARY KEY,
    "残高" INTEGER NOT NULL,
    "テーブルのチップ" INTEGER NOT NULL,
    "ランク" TEXT,
    "取引数" INTEGER NOT NULL,
    "ペナルティ数" INTEGER NOT NULL,
    "没収ポイント" INTEGER NOT NULL,
    "最終取引" TEXT
);
CREATE TABLE hands (
    "番号" INTEGER PRIMARY KEY,
    "ハンド" TEXT NOT NULL,
    "テーブル" TEXT REFERENCES tables("テーブル"),
    "卓番号" INTEGER,
    "ゲーム" TEXT,
    "ハンド番号" INTEGER NOT NULL,
    "開始" TEXT,
    "終了" TEXT,
    "ボタン" INTEGER,
    "参加者" TEXT,
    "ボード" TEXT,
    "公開された手札" TEXT,
    "アクション" TEXT,
    "ポット" TEXT,
    "レイク" INTEGER,
    "精算" TEXT,
    "終了時スタック" TEXT
);
CREATE TABLE hand_log (
    "番号" INTEGER PRIMARY KEY,
    "ハンド" INTEGER NOT NULL REFERENCES hands("番号"),
    "順番" INTEGER NOT NULL,
    "日時" TEXT,
    "内容" TEXT NOT NULL
);
-- A hand step by step, for its page's replayer (referee/records/replay.py: seats, steps with
-- the pot and stacks after each, one line per step); only cards the room was shown.
CREATE TABLE replays (
    "ハンド" INTEGER PRIMARY KEY REFERENCES hands("番号"),
    "経過" TEXT NOT NULL
);
-- A hand's books (referee/records/replay.py): chips players put in (net of returns), chips paid
-- to them, the rake, and what the players won from the house or the pot (payouts - stakes).
CREATE TABLE books (
    "ハンド" INTEGER PRIMARY KEY REFERENCES hands("番号"),
    "月" TEXT,
    "ゲーム" TEXT,
    "賭け金" INTEGER NOT NULL,
    "支払い" INTEGER NOT NULL,
    "レイク" INTEGER NOT NULL,
    "プレイヤーの収支" INTEGER NOT NULL
);
CREATE TABLE ledger (
    "番号" INTEGER PRIMARY KEY,
    "日時" TEXT,
    "プレイヤー" TEXT NOT NULL REFERENCES bank("プレイヤー"),
    "増減" INTEGER NOT NULL,
    "残高" INTEGER NOT NULL,
    "理由" TEXT NOT NULL,
    "テーブル" TEXT,
    "ハンド" INTEGER REFERENCES hands("番号")
);
CREATE TABLE flags (
    "番号" INTEGER PRIMARY KEY,
    "日時" TEXT,
    "テーブル" TEXT,
    "フラグ番号" INTEGER NOT NULL,
    "ハンド" INTEGER REFERENCES hands("番号"),
    "プレイヤー" TEXT NOT NULL REFERENCES bank("プレイヤー"),
    "種類" TEXT NOT NULL,
    "確度" TEXT,
    "発言" TEXT,
    "状態" TEXT NOT NULL,
    "判断者" TEXT,
    "判断日時" TEXT
);
CREATE TABLE penalties (
    "番号" INTEGER PRIMARY KEY,
    "日時" TEXT,
    "テーブル" TEXT,
    "ハンド" INTEGER REFERENCES hands("番号"),
    "プレイヤー" TEXT NOT NULL REFERENCES bank("プレイヤー"),
    "種類" TEXT NOT NULL,
    "ポイント" INTEGER NOT NULL,
    "チップ" INTEGER NOT NULL,
    "フラグ" INTEGER REFERENCES flags("番号"),
    "発言者" TEXT,
    "原因の発言" TEXT,
    "返還" TEXT
);
CREATE TABLE ranks (
    "番号" INTEGER PRIMARY KEY,
    "日時" TEXT,
    "プレイヤー" TEXT NOT NULL REFERENCES bank("プレイヤー"),
    "ランク" TEXT,
    "以前のランク" TEXT
);
CREATE INDEX ledger_player ON ledger("プレイヤー", "番号");
CREATE INDEX ledger_hand ON ledger("ハンド");
CREATE INDEX penalties_player ON penalties("プレイヤー", "番号");
CREATE INDEX penalties_hand ON penalties("ハンド");
CREATE INDEX penalties_flag ON penalties("フラグ");
CREATE INDEX flags_player ON flags("プレイヤー", "番号");
CREATE INDEX flags_hand ON flags("ハンド");
CREATE INDEX ranks_player ON ranks("プレイヤー", "番号");
CREATE INDEX hands_table ON hands("テーブル", "番号");
CREATE INDEX hand_log_hand ON hand_log("ハンド", "順番");
CREATE INDEX books_month ON books("月", "ゲーム");
