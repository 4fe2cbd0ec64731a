// SPDX-License-Identifier: MIT OR GPL-2.0
/*
 * coupled_core.h on the host, for the test that checks it against crates/mptcp-cc: each line
 * of standard input is `law r n` and then n subflows' `cwnd srtt_us l1 l2`; each line out is
 * subflow r's increase and decrease, Q32 packets.
 */
#include <stdio.h>
#include <string.h>
#include <linux/types.h>

#include "coupled_core.h"

int main(void)
{
	int law, r, n;
	while (scanf("%d %d %d", &law, &r, &n) == 3) {
		struct eq_connection c;
		struct eq_sums sums;
		int k;
		memset(&c, 0, sizeof(c));
		if (n < 1 || n > EQ_MAX_SUBFLOWS || r < 0 || r >= n)
			return 2;
		for (k = 0; k < n; k++) {
			struct eq_subflow *s = &c.subflows[k];
			unsigned long long l1, l2;
			if (scanf("%u %u %llu %llu", &s->cwnd, &s->srtt_us, &l1, &l2) != 4)
				return 2;
			s->sk = k + 1;
			s->acked_between_losses = l1;
			s->acked_since_loss = l2;
		}
		eq_sum(&c, &sums);
		printf("%lld %lld\n", (long long)eq_increase(law, &c.subflows[r], &sums),
		       (long long)eq_decrease(law, &c.subflows[r], &sums));
	}
	return 0;
}
