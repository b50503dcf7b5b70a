/* The C reference of bench/evaluators.py and bench/analysis.py: a plain C loop over
 * phevaluator's own C library (its sources from the phevaluator sdist on PyPI, compiled with
 * cc -O3 -march=native by bench/native/cref.py into a cache directory and linked with this).
 *
 *   phe_loop seven FILE MIN_SECONDS   FILE: 7 bytes a hand (card ids rank * 4 + suit)
 *   phe_loop omaha FILE MIN_SECONDS   FILE: 9 bytes a deal (4 hole cards, then 5 board cards)
 *   phe_loop aa                       every C(52, 5) hand through evaluate_5cards, counted by rank
 *
 * The loops repeat whole passes over the hands until MIN_SECONDS of this process's CPU time
 * (CLOCK_PROCESS_CPUTIME_ID) have been used; reading the file is not timed. Prints one JSON
 * line: hands evaluated, CPU seconds of the loop alone, and the sum of the ranks of one pass
 * (the Python side checks it against phevaluator's Python package on the same hands).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "phevaluator/phevaluator.h"

int evaluate_plo4_cards(int c1, int c2, int c3, int c4, int c5, int h1, int h2, int h3, int h4);

static double cpu_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint8_t *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(2); }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc((size_t)n);
    if (fread(buf, 1, (size_t)n, f) != (size_t)n) { perror(path); exit(2); }
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static int64_t pass_seven(const uint8_t *c, size_t hands) {
    int64_t sum = 0;
    for (size_t i = 0; i < hands; i++, c += 7)
        sum += evaluate_7cards(c[0], c[1], c[2], c[3], c[4], c[5], c[6]);
    return sum;
}

static int64_t pass_omaha(const uint8_t *c, size_t hands) {
    int64_t sum = 0;
    for (size_t i = 0; i < hands; i++, c += 9)
        sum += evaluate_plo4_cards(c[4], c[5], c[6], c[7], c[8], c[0], c[1], c[2], c[3]);
    return sum;
}

static int aa(void) {
    static int64_t counts[7463];
    double t0 = cpu_now();
    for (int e = 4; e < 52; e++) for (int d = 3; d < e; d++) for (int c = 2; c < d; c++)
    for (int b = 1; b < c; b++) for (int a = 0; a < b; a++)
        counts[evaluate_5cards(a, b, c, d, e)]++;
    double spent = cpu_now() - t0;
    printf("{\"seconds\": %.6f, \"counts\": [", spent);
    for (int r = 0; r < 7463; r++) printf(r ? ", %lld" : "%lld", (long long)counts[r]);
    printf("]}\n");
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "aa") == 0) return aa();
    if (argc != 4) { fprintf(stderr, "usage: phe_loop seven|omaha FILE MIN_SECONDS | aa\n"); return 2; }
    int seven = strcmp(argv[1], "seven") == 0;
    size_t len, width = seven ? 7 : 9;
    uint8_t *cards = slurp(argv[2], &len);
    size_t hands = len / width;
    double min_time = atof(argv[3]), spent = 0;
    int64_t sum = 0, reps = 0;
    while (spent < min_time) {
        double t0 = cpu_now();
        int64_t s = seven ? pass_seven(cards, hands) : pass_omaha(cards, hands);
        spent += cpu_now() - t0;
        if (reps == 0) sum = s;
        else if (s != sum) { fprintf(stderr, "passes disagree\n"); return 1; }
        reps++;
    }
    printf("{\"hands\": %lld, \"seconds\": %.6f, \"rank_sum\": %lld}\n",
           (long long)(reps * (int64_t)hands), spent, (long long)sum);
    return 0;
}
