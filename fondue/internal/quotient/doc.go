// Package quotient searches the sign vector b that maximises FONDUE's
// Rayleigh quotient ||sum_j b_j (x_i - x_j)||^2 / deg(i) of one node:
// an eigenvector sweep, random sign vectors and single-sign flips, with an
// AVX2 kernel for d = 8. Package score scores nodes with it, and the CNE
// fit's ranking-stability stop (package cne) ranks its sample with it.
package quotient
