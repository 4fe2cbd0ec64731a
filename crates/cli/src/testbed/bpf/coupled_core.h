/* SPDX-License-Identifier: MIT OR GPL-2.0 */
/*
 * LIA (RFC 6356), OLIA (seed 002, eqs. 3-6) and BALIA (seed 000, eqs. 1-2): a subflow's
 * window growth per packet acknowledged in congestion avoidance, and its decrease on a loss,
 * over the subflows of one connection, as crates/mptcp-cc computes them.
 *
 * In integer arithmetic, since BPF has no other: every quantity is a number m * 2^e with a
 * 31-bit mantissa (about 9 significant digits), so that rates of windows over round trips of
 * any size keep their precision without 128-bit products. Compiled into the kernel's
 * congestion controls (coupled.bpf.c) and into a host program that the test suite checks
 * against crates/mptcp-cc on the same inputs.
 *
 * The functions are global (not static, never inlined) so that the BPF verifier checks each
 * once, not once per path through its callers; a global function takes and returns scalars
 * and pointers it checks for NULL. BPF divides unsigned numbers only: every division here is
 * of unsigned ones. The includer defines __u64, __u32, __s64 and __s32.
 */
#ifndef EQ_COUPLED_CORE_H
#define EQ_COUPLED_CORE_H

#define EQ_FUNC __attribute__((noinline))
#ifdef __clang__
#define EQ_UNROLL _Pragma("unroll")
#else
#define EQ_UNROLL
#endif

/* The most subflows one connection's state holds (the kernel's MPTCP opens at most 8). */
#define EQ_MAX_SUBFLOWS 8
/* One packet in Q32, the fixed point of increases and decreases. */
#define EQ_ONE (1ULL << 32)

enum eq_law { EQ_LIA = 1, EQ_OLIA = 2, EQ_BALIA = 3 };

/* What a subflow publishes for the others of its connection; `sk` 0 is a free slot. */
struct eq_subflow {
	__u64 sk;
	/* Congestion window, packets. */
	__u32 cwnd;
	/* Smoothed round trip, microseconds; 0 before the first sample. */
	__u32 srtt_us;
	/* Packets acknowledged between the last two losses (OLIA's l1) and since the last (l2). */
	__u64 acked_between_losses;
	__u64 acked_since_loss;
};

/* The subflows of one connection. */
struct eq_connection {
	struct eq_subflow subflows[EQ_MAX_SUBFLOWS];
};

/*
 * A number m * 2^e in one word: the mantissa m, in [2^30, 2^31) or 0 for zero, in the low 32
 * bits, the exponent e in the high 32.
 */
typedef __u64 eq_num;

static inline __u64 eq_mantissa(eq_num x) { return x & 0xffffffffULL; }
static inline __s32 eq_exponent(eq_num x) { return (__s32)(__u32)(x >> 32); }

/* m * 2^e for any m (normalized). */
EQ_FUNC eq_num eq_make(__u64 m, __s32 e)
{
	__u64 v = m;
	__s32 bits = 1;
	if (!m)
		return 0;
	if (v >> 32) { v >>= 32; bits += 32; }
	if (v >> 16) { v >>= 16; bits += 16; }
	if (v >> 8) { v >>= 8; bits += 8; }
	if (v >> 4) { v >>= 4; bits += 4; }
	if (v >> 2) { v >>= 2; bits += 2; }
	if (v >> 1) { bits += 1; }
	if (bits > 31) {
		m >>= bits - 31;
		e += bits - 31;
	} else {
		m <<= 31 - bits;
		e -= 31 - bits;
	}
	return ((__u64)(__u32)e << 32) | m;
}

static inline eq_num eq_int(__u64 v) { return eq_make(v, 0); }

EQ_FUNC eq_num eq_mul(eq_num a, eq_num b)
{
	if (!eq_mantissa(a) || !eq_mantissa(b))
		return 0;
	return eq_make(eq_mantissa(a) * eq_mantissa(b), eq_exponent(a) + eq_exponent(b));
}

/* a / b, and 0 where b is 0. */
EQ_FUNC eq_num eq_div(eq_num a, eq_num b)
{
	if (!eq_mantissa(a) || !eq_mantissa(b))
		return 0;
	return eq_make((eq_mantissa(a) << 32) / eq_mantissa(b), eq_exponent(a) - eq_exponent(b) - 32);
}

EQ_FUNC eq_num eq_add(eq_num a, eq_num b)
{
	eq_num hi = a, lo = b;
	__s32 d;
	if (!eq_mantissa(a))
		return b;
	if (!eq_mantissa(b))
		return a;
	if (eq_exponent(b) > eq_exponent(a)) {
		hi = b;
		lo = a;
	}
	d = eq_exponent(hi) - eq_exponent(lo);
	if (d > 61)
		return hi;
	return eq_make((eq_mantissa(hi) << 31) + ((eq_mantissa(lo) << 31) >> d), eq_exponent(hi) - 31);
}

/* Whether a < b. */
EQ_FUNC int eq_less(eq_num a, eq_num b)
{
	if (!eq_mantissa(a))
		return eq_mantissa(b) != 0;
	if (!eq_mantissa(b))
		return 0;
	if (eq_exponent(a) != eq_exponent(b))
		return eq_exponent(a) < eq_exponent(b);
	return eq_mantissa(a) < eq_mantissa(b);
}

/* a * 2^32, at most 2^62. */
EQ_FUNC __s64 eq_q32(eq_num a)
{
	__s32 shift = eq_exponent(a) + 32;
	if (!eq_mantissa(a) || shift < -62)
		return 0;
	if (shift > 31)
		return 1LL << 62;
	if (shift >= 0)
		return (__s64)(eq_mantissa(a) << shift);
	return (__s64)(eq_mantissa(a) >> -shift);
}

/* A subflow's rate w/tau, packets per microsecond (0 without a round trip). */
EQ_FUNC eq_num eq_rate(__u32 cwnd, __u32 srtt_us) { return eq_div(eq_int(cwnd), eq_int(srtt_us)); }

/* OLIA's quality of a path, l / tau^2 with l = max(l1, l2) (0 without a round trip). */
EQ_FUNC eq_num eq_quality(const struct eq_subflow *s)
{
	__u64 l;
	if (!s || !s->srtt_us)
		return 0;
	l = s->acked_between_losses > s->acked_since_loss ? s->acked_between_losses : s->acked_since_loss;
	return eq_div(eq_int(l), eq_mul(eq_int(s->srtt_us), eq_int(s->srtt_us)));
}

/* Sums and extremes over a connection's subflows. */
struct eq_sums {
	/* X = sum of w_k / tau_k, and the largest w_k / tau_k and w_k / tau_k^2. */
	eq_num total;
	eq_num fastest;
	eq_num most_per_rtt2;
	/* OLIA: the best l_k / tau_k^2, the largest window, and how many subflows have it (M) or
	 * have the best quality without it (B \ M). */
	eq_num best_quality;
	__u32 largest;
	__u32 subflows;
	__u32 in_m;
	__u32 b_not_m;
};

/* Adds subflow s to the sums (a free slot adds nothing). */
EQ_FUNC int eq_gather(const struct eq_subflow *s, struct eq_sums *sums)
{
	eq_num rate, per_rtt2, q;
	if (!s || !sums || !s->sk)
		return 0;
	sums->subflows++;
	if (s->cwnd > sums->largest)
		sums->largest = s->cwnd;
	if (!s->srtt_us)
		return 0;
	rate = eq_rate(s->cwnd, s->srtt_us);
	sums->total = eq_add(sums->total, rate);
	if (eq_less(sums->fastest, rate))
		sums->fastest = rate;
	per_rtt2 = eq_div(rate, eq_int(s->srtt_us));
	if (eq_less(sums->most_per_rtt2, per_rtt2))
		sums->most_per_rtt2 = per_rtt2;
	q = eq_quality(s);
	if (eq_less(sums->best_quality, q))
		sums->best_quality = q;
	return 0;
}

/* Counts subflow s into OLIA's sets M and B \ M, once the sums are complete. */
EQ_FUNC int eq_classify(const struct eq_subflow *s, struct eq_sums *sums)
{
	if (!s || !sums || !s->sk)
		return 0;
	if (s->cwnd == sums->largest)
		sums->in_m++;
	else if (eq_quality(s) == sums->best_quality)
		sums->b_not_m++;
	return 0;
}

/* The sums over all subflows of c. */
static inline void eq_sum(const struct eq_connection *c, struct eq_sums *sums)
{
	int k;
	__builtin_memset(sums, 0, sizeof(*sums));
EQ_UNROLL
	for (k = 0; k < EQ_MAX_SUBFLOWS; k++)
		eq_gather(&c->subflows[k], sums);
EQ_UNROLL
	for (k = 0; k < EQ_MAX_SUBFLOWS; k++)
		eq_classify(&c->subflows[k], sums);
}

/*
 * The growth of window r per packet it acknowledges in congestion avoidance, Q32 packets
 * (negative: OLIA may shrink a window), given the sums over its connection. A subflow without
 * a round trip grows as Reno's, 1/w.
 */
EQ_FUNC __s64 eq_increase(int law, const struct eq_subflow *s, const struct eq_sums *sums)
{
	eq_num rate, x2, kelly_voice;
	__s64 reno, kv;
	if (!s || !sums || !s->cwnd)
		return 0;
	reno = (__s64)(EQ_ONE / s->cwnd);
	if (!s->srtt_us)
		return reno;
	rate = eq_rate(s->cwnd, s->srtt_us);
	x2 = eq_mul(sums->total, sums->total);
	/* (w_r / tau_r^2) / X^2 */
	kelly_voice = eq_div(eq_div(rate, eq_int(s->srtt_us)), x2);
	if (law == EQ_LIA) {
		/* min(max_k(w_k / tau_k^2) / X^2, 1 / w_r) */
		__s64 coupled = eq_q32(eq_div(sums->most_per_rtt2, x2));
		return coupled < reno ? coupled : reno;
	}
	if (law == EQ_BALIA) {
		/* kelly_voice * (1 + a) / 2 * (4 + a) / 5, a = x_max / x_r */
		eq_num a = eq_div(sums->fastest, rate);
		eq_num f = eq_mul(eq_add(eq_int(1), a), eq_add(eq_int(4), a));
		return eq_q32(eq_div(eq_mul(kelly_voice, f), eq_int(10)));
	}
	/* OLIA: kelly_voice + alpha_r / w_r, alpha_r = 1 / (n |B \ M|) on B \ M and
	 * -1 / (n |M|) on M where B \ M is not empty, 0 otherwise. */
	kv = eq_q32(kelly_voice);
	if (!sums->b_not_m)
		return kv;
	if (s->cwnd == sums->largest)
		return kv - (__s64)(EQ_ONE / ((__u64)sums->subflows * sums->in_m * s->cwnd));
	if (eq_quality(s) == sums->best_quality)
		return kv + (__s64)(EQ_ONE / ((__u64)sums->subflows * sums->b_not_m * s->cwnd));
	return kv;
}

/*
 * How much window r shrinks on a loss, Q32 packets: half of it, and for BALIA half of it
 * times min(x_max / x_r, 1.5).
 */
EQ_FUNC __s64 eq_decrease(int law, const struct eq_subflow *s, const struct eq_sums *sums)
{
	eq_num a, most;
	if (!s || !sums)
		return 0;
	if (law != EQ_BALIA || !s->srtt_us || !s->cwnd)
		return (__s64)((__u64)s->cwnd << 31);
	a = eq_div(sums->fastest, eq_rate(s->cwnd, s->srtt_us));
	most = eq_div(eq_int(3), eq_int(2));
	if (eq_less(most, a))
		a = most;
	return eq_q32(eq_mul(eq_int(s->cwnd), a)) >> 1;
}

#endif
