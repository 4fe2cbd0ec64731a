// SPDX-License-Identifier: MIT OR GPL-2.0
/*
 * A coupled window law (LIA, OLIA or BALIA, chosen by EQ_LAW at compile time) as a BPF
 * congestion control for the kernel's MPTCP subflows: slow start, recovery and timeouts are
 * the kernel's own (as for its Reno); congestion avoidance grows the window by the law's
 * increase per packet acknowledged, and a loss sets the slow-start threshold to the window
 * less the law's decrease. The laws themselves are coupled_core.h.
 *
 * The subflows of one connection find each other through their MPTCP connection's socket
 * (the subflow context's `conn`), the key of a hash map entry holding each subflow's window,
 * round trip and loss counts; a single-path TCP socket is its own key. The entry is removed
 * when the connection's last subflow releases the law.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "coupled_core.h"

#ifndef EQ_LAW
#error "EQ_LAW must be EQ_LIA, EQ_OLIA or EQ_BALIA"
#endif

char _license[] SEC("license") = "Dual MIT/GPL";

/* The kernel's Reno, exported to BPF congestion controls. */
extern __u32 tcp_slow_start(struct tcp_sock *tp, __u32 acked) __ksym;
extern __u32 tcp_reno_undo_cwnd(struct sock *sk) __ksym;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, struct eq_connection);
} connections SEC(".maps");

/* What a subflow keeps for itself, in the socket's congestion-control area. */
struct eq_private {
	__u64 key;
	/* Growth not yet whole packets, Q32. */
	__s64 pending;
	__u32 slot;
};

static inline struct tcp_sock *eq_tcp(struct sock *sk) { return (struct tcp_sock *)sk; }

static inline struct eq_private *eq_private(struct sock *sk)
{
	return (struct eq_private *)((struct inet_connection_sock *)sk)->icsk_ca_priv;
}

/* The connection's key: its MPTCP socket, or the socket itself for a TCP one. */
static __u64 eq_key(struct sock *sk)
{
	struct inet_connection_sock *icsk = (struct inet_connection_sock *)sk;
	struct mptcp_subflow_context *ctx = BPF_CORE_READ(icsk, icsk_ulp_data);
	struct sock *conn;
	if (!ctx || !BPF_CORE_READ_BITFIELD_PROBED(eq_tcp(sk), is_mptcp))
		return (__u64)sk;
	conn = BPF_CORE_READ(ctx, conn);
	return conn ? (__u64)conn : (__u64)sk;
}

static struct eq_subflow *eq_own(struct sock *sk, struct eq_connection **connection)
{
	struct eq_private *p = eq_private(sk);
	/* (A map's key is read from the stack, not from the socket.) */
	__u64 key = p->key;
	__u32 slot = p->slot;
	struct eq_connection *c = bpf_map_lookup_elem(&connections, &key);
	if (!c || slot >= EQ_MAX_SUBFLOWS)
		return 0;
	*connection = c;
	return &c->subflows[slot];
}

/* Writes the subflow's window and round trip where the others read them. */
static void eq_publish(struct sock *sk, struct eq_subflow *own)
{
	struct tcp_sock *tp = eq_tcp(sk);
	own->cwnd = tp->snd_cwnd;
	own->srtt_us = tp->srtt_us >> 3;
}

SEC("struct_ops")
void BPF_PROG(eq_init, struct sock *sk)
{
	struct eq_private *p = eq_private(sk);
	struct eq_connection empty = {}, *c;
	__u64 key = eq_key(sk);
	int k;

	p->key = key;
	p->pending = 0;
	p->slot = EQ_MAX_SUBFLOWS;
	bpf_map_update_elem(&connections, &key, &empty, BPF_NOEXIST);
	c = bpf_map_lookup_elem(&connections, &key);
	if (!c)
		return;
	for (k = 0; k < EQ_MAX_SUBFLOWS; k++) {
		if (__sync_val_compare_and_swap(&c->subflows[k].sk, 0, (__u64)sk) == 0) {
			p->slot = k;
			c->subflows[k].acked_between_losses = 0;
			c->subflows[k].acked_since_loss = 0;
			eq_publish(sk, &c->subflows[k]);
			return;
		}
	}
}

SEC("struct_ops")
void BPF_PROG(eq_release, struct sock *sk)
{
	struct eq_connection *c;
	struct eq_subflow *own = eq_own(sk, &c);
	__u64 key = eq_private(sk)->key;
	int k;
	if (!own)
		return;
	own->sk = 0;
	for (k = 0; k < EQ_MAX_SUBFLOWS; k++)
		if (c->subflows[k].sk)
			return;
	bpf_map_delete_elem(&connections, &key);
}

SEC("struct_ops")
void BPF_PROG(eq_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct eq_connection *c;
	struct eq_subflow *own = eq_own(sk, &c);
	if (!own)
		return;
	if (sample->pkts_acked > 0) {
		own->acked_since_loss += sample->pkts_acked;
	}
	eq_publish(sk, own);
}

static int eq_cwnd_limited(struct tcp_sock *tp)
{
	if (tp->snd_cwnd < tp->snd_ssthresh)
		return tp->snd_cwnd < 2 * tp->max_packets_out;
	return BPF_CORE_READ_BITFIELD_PROBED(tp, is_cwnd_limited);
}

SEC("struct_ops")
void BPF_PROG(eq_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = eq_tcp(sk);
	struct eq_private *p = eq_private(sk);
	struct eq_connection *c;
	struct eq_subflow *own;
	__s64 growth, whole;
	__u32 slot;

	if (!eq_cwnd_limited(tp))
		return;
	if (tp->snd_cwnd < tp->snd_ssthresh) {
		acked = tcp_slow_start(tp, acked);
		if (!acked)
			return;
	}
	own = eq_own(sk, &c);
	slot = p->slot;
	if (!own || slot >= EQ_MAX_SUBFLOWS) {
		/* No state: Reno. */
		growth = (__s64)(EQ_ONE / (tp->snd_cwnd ? tp->snd_cwnd : 1)) * acked;
	} else {
		struct eq_sums sums;
		eq_publish(sk, own);
		eq_sum(c, &sums);
		growth = eq_increase(EQ_LAW, own, &sums) * acked;
	}
	p->pending += growth;
	whole = p->pending >> 32;
	if (whole) {
		__s64 cwnd = (__s64)tp->snd_cwnd + whole;
		p->pending -= whole << 32;
		if (cwnd < 1)
			cwnd = 1;
		if (cwnd > tp->snd_cwnd_clamp)
			cwnd = tp->snd_cwnd_clamp;
		tp->snd_cwnd = cwnd;
		if (own)
			own->cwnd = cwnd;
	}
}

SEC("struct_ops")
__u32 BPF_PROG(eq_ssthresh, struct sock *sk)
{
	struct tcp_sock *tp = eq_tcp(sk);
	struct eq_private *p = eq_private(sk);
	struct eq_connection *c;
	struct eq_subflow *own = eq_own(sk, &c);
	__u32 slot = p->slot;
	__s64 decrease, left;
	if (!own || slot >= EQ_MAX_SUBFLOWS)
		return tp->snd_cwnd >> 1 > 2 ? tp->snd_cwnd >> 1 : 2;
	struct eq_sums sums;
	eq_publish(sk, own);
	eq_sum(c, &sums);
	decrease = eq_decrease(EQ_LAW, own, &sums);
	own->acked_between_losses = own->acked_since_loss;
	own->acked_since_loss = 0;
	p->pending = 0;
	left = (((__s64)tp->snd_cwnd << 32) - decrease) >> 32;
	return left > 2 ? left : 2;
}

SEC("struct_ops")
__u32 BPF_PROG(eq_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops eq_law = {
	.init = (void *)eq_init,
	.release = (void *)eq_release,
	.pkts_acked = (void *)eq_pkts_acked,
	.cong_avoid = (void *)eq_cong_avoid,
	.ssthresh = (void *)eq_ssthresh,
	.undo_cwnd = (void *)eq_undo_cwnd,
	/* Replaced by each run's own name (at most 15 characters) before registration. */
	.name = "eq.name.of.run",
};
