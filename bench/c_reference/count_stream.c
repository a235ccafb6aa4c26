/* The reference counting kernel of shared/reference/limits.md ("C stream"): for every attribute pair, one pass
 * over the rows incrementing T[(y*ci + xi)*cj + xj]. Compiled and run by bench/bench_core.py on the same data as
 * dbayes's kernel, so the ratio is measured in one run.
 *
 *   count_stream N D C codes.bin classes.bin cards...   -> prints rows/second and a checksum
 * codes.bin: D columns of N uint8 codes each (column-major); classes.bin: N uint8 class codes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc < 6) return 2;
    long n = atol(argv[1]);
    int d = atoi(argv[2]), c = atoi(argv[3]);
    int *card = malloc(sizeof(int) * d);
    for (int i = 0; i < d; i++) card[i] = atoi(argv[6 + i]);
    uint8_t *x = malloc((size_t)n * d), *y = malloc(n);
    FILE *f = fopen(argv[4], "rb");
    if (!f || fread(x, 1, (size_t)n * d, f) != (size_t)n * d) return 3;
    fclose(f);
    f = fopen(argv[5], "rb");
    if (!f || fread(y, 1, n, f) != (size_t)n) return 3;
    fclose(f);
    size_t cells = 0;
    for (int i = 0; i < d; i++)
        for (int j = i + 1; j < d; j++) cells += (size_t)c * card[i] * card[j];
    int64_t *t = calloc(cells, sizeof(int64_t));
    double t0 = now();
    size_t off = 0;
    for (int i = 0; i < d; i++) {
        for (int j = i + 1; j < d; j++) {
            const uint8_t *xi = x + (size_t)i * n, *xj = x + (size_t)j * n;
            int64_t *T = t + off;
            int ci = card[i], cj = card[j];
            for (long r = 0; r < n; r++) T[(y[r] * ci + xi[r]) * cj + xj[r]]++;
            off += (size_t)c * ci * cj;
        }
    }
    double dt = now() - t0;
    int64_t sum = 0;
    for (size_t k = 0; k < cells; k++) sum += t[k] * (int64_t)(k % 7 + 1);
    printf("%.1f %lld\n", n / dt, (long long)sum);
    return 0;
}
