/* Reference for bench/analysis.py: exact full-pay Deuces Wild, optimal hold, in plain C.
 *
 * The method of the public Zig program panda-probs (Wizard of Odds' counting method), written
 * here from its description, not its code: evaluate every five-card hand once, count for every
 * subset of 0..4 cards how many hands of each class contain it, then for every one of the
 * 2,598,960 dealt hands and each of its 32 holds get the class frequencies of the completions
 * by inclusion-exclusion over the discards, and play the hold with the highest expected pay.
 * One thread, no suit classes (as that program). Prints the return and the wall time.
 *
 * `deuces_wild_ref classes` plays only one hand of each of the 134,459 suit classes (the hands
 * that differ only by a permutation of the four suits pay the same), weighted by the class's
 * size: the plain C enumerator over suit classes bench/analysis.py compares the in-process
 * compute of `referee analyze deuces` with. Both modes also print the CPU seconds of the
 * computation alone (`cpu_seconds`, CLOCK_PROCESS_CPUTIME_ID).
 *
 * Build: cc -O3 -march=native -o deuces_wild_ref deuces_wild_ref.c   (bench/native/cref.py)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { K = 13 }; /* deuces classes, strongest first (referee/hands/names.py DEUCES) */
enum { NAT_ROYAL, FOUR_DEUCES, WILD_ROYAL, FIVE_KIND, STRAIGHT_FLUSH, FOUR_KIND, FULL_HOUSE,
       FLUSH, STRAIGHT, THREE_KIND, TWO_PAIR, ONE_PAIR, HIGH_CARD };
static const double PAY[K] = {800, 200, 25, 15, 9, 5, 3, 2, 2, 1, 0, 0, 0};

static int64_t C[53][6];

static int colex(const int *c, int n) {
    int idx = 0;
    for (int j = 0; j < n; j++) idx += (int)C[c[j]][j + 1];
    return idx;
}

/* card = rank * 4 + suit, rank 0 = the deuce (wild) ... 12 = the ace */
static int classify(const int *h) {
    int cnt[13] = {0}, suits = 0xF, w = 0;
    for (int i = 0; i < 5; i++) {
        int r = h[i] >> 2;
        cnt[r]++;
        if (r == 0) w++; else suits &= 1 << (h[i] & 3);
    }
    if (w == 4) return FOUR_DEUCES;
    int m = 0, k = 0, lo = 99, hi = -1, wheel = 1;
    for (int r = 1; r < 13; r++) if (cnt[r]) {
        k++;
        if (cnt[r] > m) m = cnt[r];
        if (r < lo) lo = r;
        if (r > hi) hi = r;
        if (!(r == 1 || r == 2 || r == 3 || r == 12)) wheel = 0;
    }
    int distinct = m <= 1, suited = suits != 0;
    int straight = distinct && (hi - lo <= 4 || wheel);
    int royal = distinct && lo >= 8;
    if (w == 0 && suited && royal) return NAT_ROYAL;
    if (w > 0 && suited && royal) return WILD_ROYAL;
    if (m + w >= 5) return FIVE_KIND;
    if (suited && straight) return STRAIGHT_FLUSH;
    if (m + w >= 4) return FOUR_KIND;
    if ((w == 0 && m == 3 && k == 2) || (w == 1 && m == 2 && k == 2)) return FULL_HOUSE;
    if (suited) return FLUSH;
    if (straight) return STRAIGHT;
    if (m + w >= 3) return THREE_KIND;
    if (w == 0 && m == 2 && k == 3) return TWO_PAIR;
    if (m + w >= 2) return ONE_PAIR;
    return HIGH_CARD;
}

static const int PERMS[24][4] = {
    {0,1,2,3},{0,1,3,2},{0,2,1,3},{0,2,3,1},{0,3,1,2},{0,3,2,1},{1,0,2,3},{1,0,3,2},
    {1,2,0,3},{1,2,3,0},{1,3,0,2},{1,3,2,0},{2,0,1,3},{2,0,3,1},{2,1,0,3},{2,1,3,0},
    {2,3,0,1},{2,3,1,0},{3,0,1,2},{3,0,2,1},{3,1,0,2},{3,1,2,0},{3,2,0,1},{3,2,1,0}};

/* the colex index of the smallest image of h under the 24 suit permutations */
static int canonical(const int *h) {
    int best = 1 << 30;
    for (int p = 0; p < 24; p++) {
        int s[5];
        for (int j = 0; j < 5; j++) {
            int c = (h[j] & ~3) | PERMS[p][h[j] & 3], i = j;
            while (i > 0 && s[i - 1] > c) { s[i] = s[i - 1]; i--; }
            s[i] = c;
        }
        int idx = colex(s, 5);
        if (idx < best) best = idx;
    }
    return best;
}

int main(int argc, char **argv) {
    struct timespec t0, t1, c0, c1;
    int classes = argc > 1 && strcmp(argv[1], "classes") == 0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    for (int n = 0; n <= 52; n++)
        for (int k = 0; k < 6; k++) C[n][k] = k == 0 ? 1 : n == 0 ? 0 : C[n - 1][k - 1] + C[n - 1][k];
    int64_t *sub[5];
    for (int m = 0; m < 5; m++) sub[m] = calloc((size_t)C[52][m] * K, sizeof(int64_t));
    uint8_t *klass = malloc((size_t)C[52][5]);
    int h[5];
    /* pass 1: every hand's class and the subset counts */
    for (h[4] = 4; h[4] < 52; h[4]++) for (h[3] = 3; h[3] < h[4]; h[3]++)
    for (h[2] = 2; h[2] < h[3]; h[2]++) for (h[1] = 1; h[1] < h[2]; h[1]++)
    for (h[0] = 0; h[0] < h[1]; h[0]++) {
        int k = classify(h);
        klass[colex(h, 5)] = (uint8_t)k;
        for (int mask = 0; mask < 31; mask++) {
            int s[5], n = 0;
            for (int j = 0; j < 5; j++) if (mask >> j & 1) s[n++] = h[j];
            sub[n][(int64_t)colex(s, n) * K + k]++;
        }
    }
    /* the weight of each suit class, kept at its smallest member (1 per hand without classes) */
    int32_t *weight = calloc((size_t)C[52][5], sizeof(int32_t));
    int64_t played = 0;
    for (h[4] = 4; h[4] < 52; h[4]++) for (h[3] = 3; h[3] < h[4]; h[3]++)
    for (h[2] = 2; h[2] < h[3]; h[2]++) for (h[1] = 1; h[1] < h[2]; h[1]++)
    for (h[0] = 0; h[0] < h[1]; h[0]++)
        weight[classes ? canonical(h) : colex(h, 5)]++;
    double div[6];
    for (int s = 0; s <= 5; s++) div[s] = (double)C[47][5 - s];
    double total = 0, freq[K] = {0};
    /* pass 2: every dealt hand, 32 holds by inclusion-exclusion */
    for (h[4] = 4; h[4] < 52; h[4]++) for (h[3] = 3; h[3] < h[4]; h[3]++)
    for (h[2] = 2; h[2] < h[3]; h[2]++) for (h[1] = 1; h[1] < h[2]; h[1]++)
    for (h[0] = 0; h[0] < h[1]; h[0]++) {
        double w = weight[colex(h, 5)];
        if (w == 0) continue;
        played++;
        int64_t v[32][K];
        int size[32];
        for (int mask = 0; mask < 32; mask++) {
            int s[5], n = 0;
            for (int j = 0; j < 5; j++) if (mask >> j & 1) s[n++] = h[j];
            size[mask] = n;
            if (n == 5) {
                memset(v[mask], 0, sizeof v[mask]);
                v[mask][klass[colex(h, 5)]] = 1;
            } else {
                memcpy(v[mask], &sub[n][(int64_t)colex(s, n) * K], sizeof v[mask]);
            }
        }
        for (int b = 0; b < 5; b++)
            for (int mask = 0; mask < 32; mask++)
                if (!(mask >> b & 1))
                    for (int k = 0; k < K; k++) v[mask][k] -= v[mask | 1 << b][k];
        double best = -1;
        int arg = 0;
        for (int mask = 0; mask < 32; mask++) {
            double ev = 0;
            for (int k = 0; k < K; k++) ev += PAY[k] * (double)v[mask][k];
            ev /= div[size[mask]];
            if (ev > best) { best = ev; arg = mask; }
        }
        total += w * best;
        for (int k = 0; k < K; k++) freq[k] += w * (double)v[arg][k] / div[size[arg]];
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    double n = (double)C[52][5];
    printf("return %.6f%%\n", 100 * total / n);
    for (int k = 0; k < K; k++) printf("class%d %.6f\n", k, freq[k] / n);
    printf("seconds %.3f\n", (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
    printf("cpu_seconds %.3f\n", (double)(c1.tv_sec - c0.tv_sec) + 1e-9 * (double)(c1.tv_nsec - c0.tv_nsec));
    printf("hands_played %lld\n", (long long)played);
    return 0;
}
