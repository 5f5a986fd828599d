/* sim/dmath.h: natural log, exp and pow on doubles that give the same bits
 * on every compiler, optimisation level and C library.
 *
 * Contract: only IEEE 754 +, -, *, / (each correctly rounded) and integer
 * bit operations, never libm, so with -ffp-contract=off the results are
 * bit-identical wherever absim is built; relative error below 1e-14 against
 * the true value. For set-up computations that shape a run (a Zipf key
 * table, say), where libm's last bits could otherwise differ between
 * machines and fork the run.
 * Domains: dmath_ln(x) for finite x > 0; dmath_exp(x) for |x| <= 700;
 * dmath_pow(x, y) = exp(y ln x) for x > 0 within those bounds.
 */
#ifndef SIM_DMATH_H
#define SIM_DMATH_H

#include "base.h"

double dmath_ln(double x);
double dmath_exp(double x);
double dmath_pow(double x, double y);

#endif
