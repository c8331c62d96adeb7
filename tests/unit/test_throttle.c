/* The handler's throttle (collector/throttle.h), driven by a clock of our
 * own: the handler's share, the credit for bursts, and how far the period
 * goes up and comes back -- above all after one slow run, whose queued
 * signals arrive back to back. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "collector/throttle.h"
#include "tests/harness.h"

#define MS 1000000ull

/* One handler run at now taking cost ns: its verdict. */
static enum throttle_verdict run(struct throttle *th, uint64_t now, uint64_t cost)
{
	enum throttle_verdict v = throttle_check(th, 0, true, now);

	throttle_charge(th, cost);
	return v;
}

/* Cheap runs at every period: never throttled, the period never moves. */
static void test_cheap(void)
{
	struct throttle th;
	uint64_t now = 1000 * MS;
	int dropped = 0;

	memset(&th, 0, sizeof(th));
	for (int i = 0; i < 10000; i++, now += MS)
		dropped += run(&th, now, 20000) != THROTTLE_PASS;	/* 20 us of 1 ms */
	T_OK(dropped == 0 && th.slow[0] == 0, "cheap runs: %d dropped, slow %u", dropped, th.slow[0]);
}

/* One 60 ms run (the host took the CPU away mid-run), then the 60 signals
 * that queued meanwhile, 10 us apart, then the timer at 1 ms again: the
 * period goes up once, not once per queued signal, and the thread is
 * sampled again within a few tens of milliseconds. */
static void test_backlog(void)
{
	struct throttle th;
	uint64_t now = 1000 * MS, first = 0;
	int raised = 0;

	memset(&th, 0, sizeof(th));
	for (int i = 0; i < 100; i++, now += MS)
		run(&th, now, 20000);
	run(&th, now, 60 * MS);
	now += 60 * MS;
	for (int i = 0; i < 60; i++, now += 10000)
		raised += run(&th, now, 2000) == THROTTLE_RAISE;
	T_OK(raised == 1 && th.slow[0] == 1, "backlog of 60: raised %d times, slow %u (once)",
	     raised, th.slow[0]);
	/* Then at the raised period: sampled again once the debt is paid. */
	for (int i = 0; i < 200 && !first; i++) {
		uint64_t period = MS << th.slow[0];

		now += period;
		if (run(&th, now, 20000) == THROTTLE_PASS)
			first = now;
	}
	T_OK(first && th.slow[0] <= 4, "after the backlog: sampled again (slow %u)", th.slow[0]);
	for (int i = 0; i < 1000; i++) {
		now += MS << th.slow[0];
		run(&th, now, 20000);
	}
	T_OK(th.slow[0] == 0, "then back to the asked period (slow %u)", th.slow[0]);
}

/* Sustained overload: every run costs more than its share.  The period
 * still climbs, a step per THROTTLE_CAP_NS, until the handler fits. */
static void test_sustained(void)
{
	struct throttle th;
	uint64_t now = 1000 * MS;
	unsigned peak = 0;

	memset(&th, 0, sizeof(th));
	for (int i = 0; i < 20000; i++) {
		run(&th, now, 3 * MS);	/* 3 ms runs */
		now += 3 * MS + (10000ull << th.slow[0]);	/* a 10 us period */
		peak = th.slow[0] > peak ? th.slow[0] : peak;
	}
	T_OK(peak >= 8 && peak <= THROTTLE_MAX_SLOW, "sustained overload: slow climbed to %u", peak);
	T_OK(th.credit_ns > -(int64_t)(10 * THROTTLE_CAP_NS),
	     "and the handler's debt stays bounded (%lld ns)", (long long)th.credit_ns);
}

/* An event sampled by frequency has no period to raise: dropped only. */
static void test_frequency(void)
{
	struct throttle th;

	memset(&th, 0, sizeof(th));
	th.last_ns = 1000 * MS;
	th.credit_ns = -(int64_t)(50 * MS);
	T_OK(throttle_check(&th, 3, false, 1000 * MS + 1000) == THROTTLE_DROP && th.slow[3] == 0,
	     "frequency event: dropped, no raise");
	T_OK(throttle_check(&th, 2, true, 1000 * MS + 2000) == THROTTLE_RAISE && th.slow[2] == 1 &&
	     th.slow[3] == 0, "each event's period its own");
}

int main(void)
{
	test_cheap();
	test_backlog();
	test_sustained();
	test_frequency();
	return T_DONE();
}
