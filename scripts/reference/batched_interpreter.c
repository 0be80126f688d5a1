/* Reference: a plain batched postfix interpreter in C, for the throughput ratio of
 * `glucomodel-train bench-eval`. Build: cc -O3 -march=native -o /tmp/bi batched_interpreter.c -lm
 * Usage: bi EXPRESSIONS.txt ROWS COLUMNS REPEATS [float|double]
 * Same data rule as bench-eval is not needed for timing: values uniform in [-1, 1] from rand().
 * Leaves are read in place; every node counts toward GPops/s, as in bench-eval. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef USE_DOUBLE
typedef double real;
#else
typedef float real;
#endif
enum { CONST, VAR, ADD, SUB, MUL, DIV, AQ, SIN, COS, EXP, LOG, NEG };
typedef struct { int op; int col; real c; } ins;
#define B 256
static const char *p;
static ins code[4096];
static int n;

static void skip(void) { while (*p == ' ' || *p == '\t') p++; }
static void sum(void);
static void primary(void) {
    skip();
    if (*p == '(') { p++; sum(); skip(); p++; return; }
    if (*p == '-') { p++; primary(); code[n++].op = NEG; return; }
    if (*p == 'x') { p++; code[n].op = VAR; code[n++].col = (int)strtol(p, (char **)&p, 10); return; }
    if ((*p >= '0' && *p <= '9') || *p == '.') { code[n].op = CONST; code[n++].c = (real)strtod(p, (char **)&p); return; }
    int op = strncmp(p, "aq", 2) == 0 ? AQ : strncmp(p, "sin", 3) == 0 ? SIN : strncmp(p, "cos", 3) == 0 ? COS
           : strncmp(p, "exp", 3) == 0 ? EXP : LOG;
    while (*p != '(') p++;
    p++; sum(); skip();
    if (*p == ',') { p++; sum(); skip(); }
    p++;
    code[n++].op = op;
}
static void product(void) {
    primary();
    for (;;) { skip(); if (*p == '*') { p++; primary(); code[n++].op = MUL; } else if (*p == '/') { p++; primary(); code[n++].op = DIV; } else return; }
}
static void sum(void) {
    product();
    for (;;) { skip(); if (*p == '+') { p++; product(); code[n++].op = ADD; } else if (*p == '-') { p++; product(); code[n++].op = SUB; } else return; }
}

int main(int argc, char **argv) {
    if (argc < 5) { fprintf(stderr, "usage: bi FILE ROWS COLUMNS REPEATS\n"); return 2; }
    int rows = atoi(argv[2]), cols = atoi(argv[3]), reps = atoi(argv[4]);
    real *data = malloc(sizeof(real) * rows * cols);
    for (long i = 0; i < (long)rows * cols; i++) data[i] = (real)(2.0 * rand() / RAND_MAX - 1.0);
    FILE *f = fopen(argv[1], "r");
    static char line[65536];
    ins *progs[1000]; int lens[1000], np = 0; long nodes = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n') continue;
        p = line; n = 0; sum();
        progs[np] = malloc(sizeof(ins) * n); memcpy(progs[np], code, sizeof(ins) * n);
        lens[np++] = n; nodes += n;
    }
    static real buf[4096][B];
    real *ptr[4096];
    double best = 1e30, check = 0;
    for (int r = 0; r < reps; r++) {
        struct timespec t0, t1; clock_gettime(CLOCK_MONOTONIC, &t0);
        for (int k = 0; k < np; k++) {
            ins *c = progs[k];
            for (int s = 0; s < rows; s += B) {
                int m = rows - s < B ? rows - s : B, top = -1;
                for (int i = 0; i < lens[k]; i++) {
                    ins in = c[i];
                    real *d, *a, *b;
                    switch (in.op) {
                    case CONST: top++; for (int j = 0; j < m; j++) buf[top][j] = in.c; ptr[top] = buf[top]; break;
                    case VAR: top++; ptr[top] = data + (long)in.col * rows + s; break;
                    case NEG: case SIN: case COS: case EXP: case LOG:
                        a = ptr[top]; d = buf[top];
                        if (in.op == NEG) for (int j = 0; j < m; j++) d[j] = -a[j];
                        else if (in.op == SIN) for (int j = 0; j < m; j++) d[j] = sin(a[j]);
                        else if (in.op == COS) for (int j = 0; j < m; j++) d[j] = cos(a[j]);
                        else if (in.op == EXP) for (int j = 0; j < m; j++) d[j] = exp(a[j]);
                        else for (int j = 0; j < m; j++) d[j] = a[j] == 0 ? 0 : log(fabs(a[j]));
                        ptr[top] = d; break;
                    default:
                        b = ptr[top]; top--; a = ptr[top]; d = buf[top];
                        if (in.op == ADD) for (int j = 0; j < m; j++) d[j] = a[j] + b[j];
                        else if (in.op == SUB) for (int j = 0; j < m; j++) d[j] = a[j] - b[j];
                        else if (in.op == MUL) for (int j = 0; j < m; j++) d[j] = a[j] * b[j];
                        else if (in.op == DIV) for (int j = 0; j < m; j++) d[j] = a[j] / b[j];
                        else for (int j = 0; j < m; j++) d[j] = a[j] / sqrt(1 + b[j] * b[j]);
                        ptr[top] = d;
                    }
                }
                check += ptr[0][0];
            }
        }
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double sec = (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
        if (sec < best) best = sec;
    }
    printf("C batched interpreter (%s): nodes %ld, rows %d, min %.2f ms, %.2f GPops/s (check %g)\n",
           sizeof(real) == 4 ? "float" : "double", nodes, rows, best * 1e3, nodes * (double)rows / best / 1e9, check);
    return 0;
}
