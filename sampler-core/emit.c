/*
 * emit.c - the capture as a profile (sfc_emit): metadata and the
 * capture.* properties, then each process's samples with their frames,
 * stacks, threads and labels, and what the sources add to them; and the
 * capture told to a person (sfc_summary).
 */
#include "capture_int.h"
#include "strbuf.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

static const char *const states = "RSDTtZIo";

/* by time, then thread: no two samples of a thread share a time */
static int sample_cmp(const void *a, const void *b)
{
	const struct sfc_sample *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->thread < y->thread ? -1 : x->thread > y->thread;
}

static int count_prop(struct sf_profile *p, struct sf_ctx *ctx,
		      const char *name, uint64_t n)
{
	char b[32];

	snprintf(b, sizeof(b), "%" PRIu64, n);
	return sf_profile_set_prop(p, ctx, name, b);
}

/* What macOS sample's header says of the target, where Linux has it:
 * capture.path (the executable), capture.parent ("COMM [PPID]"),
 * capture.arch (its Code Type spelling), capture.os (uname),
 * capture.footprint and capture.footprint_peak (VmRSS, VmHWM, bytes). */
static int header_props(struct sfc_session *s, struct sf_ctx *ctx,
			struct sf_profile *p)
{
	struct utsname u;
	char b[400];
	int rc = 0;

	if (s->exe[0])
		rc = sf_profile_set_prop(p, ctx, "capture.path", s->exe);
	if (!rc && s->parent[0])
		rc = sf_profile_set_prop(p, ctx, "capture.parent", s->parent);
	if (!rc && !uname(&u)) {
		const char *arch = !strcmp(u.machine, "x86_64") ? "X86-64" :
				   !strcmp(u.machine, "aarch64") ? "ARM64" :
				   u.machine;
		snprintf(b, sizeof(b), "%s %s (%s)", u.sysname, u.release,
			 u.version);
		if (!(rc = sf_profile_set_prop(p, ctx, "capture.arch", arch)))
			rc = sf_profile_set_prop(p, ctx, "capture.os", b);
	}
	if (!rc && s->rss >= 0 &&
	    !(rc = count_prop(p, ctx, "capture.footprint", (uint64_t)s->rss)))
		rc = count_prop(p, ctx, "capture.footprint_peak",
				(uint64_t)s->rss_peak);
	return rc;
}

/* The samples of one process (its session), with its frames, stacks
 * and threads. */
static int emit_proc(struct sfc_session *s, struct sf_ctx *ctx,
		     struct sf_profile *p)
{
	sf_frame_id *fid = NULL;
	sf_stack_id *sid = NULL;
	sf_thread_idx *tix = NULL;
	sf_labels_id lab[8][SFC_NHOW];
	int rc;

	fid = sf_calloc(s->naddrs, sizeof(*fid));
	sid = sf_calloc(s->nnodes, sizeof(*sid));
	tix = sf_calloc(s->nthreads + 1, sizeof(*tix));
	if (!fid || !sid || !tix) {
		rc = sf_error_nomem(ctx);
		goto out;
	}
	if ((rc = sfc__symbolize(s, ctx, p, fid)))
		goto out;
	sid[0] = SF_STACK_EMPTY;
	/* a node's parent always comes before it */
	for (size_t i = 1; i < s->nnodes; i++) {
		sid[i] = sid[s->nodes[i].parent];
		if ((rc = sfc__name_push(s, ctx, p, fid, s->nodes[i].addr,
					 &sid[i])))
			goto out;
	}
	for (size_t i = 0; i < s->nthreads; i++)
		if ((rc = sf_profile_thread(p, ctx, s->pid, s->threads[i].tid,
					    s->threads[i].name, &tix[i])))
			goto out;
	for (int i = 0; i < 8; i++)
		for (int j = 0; j < SFC_NHOW; j++)
			lab[i][j] = UINT32_MAX;
	/* samples of skipped ticks were added after later ones */
	if (s->nsamples)   /* a process of the tree may have none (NULL) */
		qsort(s->samples, s->nsamples, sizeof(*s->samples),
		      sample_cmp);
	for (size_t i = 0; i < s->nsamples; i++) {
		const struct sfc_sample *x = &s->samples[i];
		const char *k = strchr(states, x->state);
		int li = k && x->state ? (int)(k - states) : 7;
		if (x->state == 'X')
			li = 5;
		double w = 1;
		/* the label of each enum sfc_how */
		int how = x->how;
		static const char *const hows[SFC_NHOW][2] = {
			[SFC_STOP] = { "", "" },
			[SFC_REUSED] = { "reused", "1" },
			[SFC_LATE] = { "reused", "late" },
			[SFC_CATCHUP] = { "reused", "catchup" },
			[SFC_PEEK] = { "stopless", "1" },
			[SFC_PERF] = { "stopless", "perf" },
		};
		sf_labels_id *l = &lab[li][how];
		if (*l == UINT32_MAX) {
			struct sf_label ls[2] = {
				{ hows[how][0], hows[how][1] },
				{ "state", sfc_state_name(states[li]) },
			};
			if ((rc = sf_profile_labels(p, ctx, ls + !how,
						    1 + !!how, l)))
				goto out;
		}
		sf_labels_id li2 = *l;
		sf_stack_id st = sid[x->stack];
		/* the sources: their frames in the stack or above its leaf,
		 * their labels after these */
		struct sf_label kl[2 + SFC_SRC_LABELS] = {
			{ "state", sfc_state_name(states[li]) },
			{ hows[how][0], hows[how][1] },
		};
		size_t nk = 1 + !!how;
		bool relabel;
		if ((rc = sfc__src_emit(s, ctx, p, x->rec, x->stack, fid, &st,
					kl, &nk, &relabel)) ||
		    (relabel &&
		     (rc = sf_profile_labels(p, ctx, kl, nk, &li2))))
			goto out;
		if ((rc = sf_profile_add_sample(p, ctx, st, tix[x->thread], li2,
						x->time, &w)))
			goto out;
	}
	/* the sources' properties (python.c: samples with Python frames) */
	rc = sfc__src_report(s, ctx, p);
out:
	free(fid);
	free(sid);
	free(tix);
	return rc;
}

int sfc_emit(struct sfc_session *s, struct sf_ctx *ctx, struct sf_profile *p)
{
	const struct sfc_stats *st = sfc_stats(s);
	uint32_t type;
	char b[64];
	int rc;

	if ((rc = sf_profile_sample_type(p, ctx, "samples", "count", &type)))
		return rc;
	p->d.meta.default_type = type;
	p->d.meta.period_type.type = sf_profile_str(p, ctx, "wall");
	p->d.meta.period_type.unit = sf_profile_str(p, ctx, "nanoseconds");
	p->d.meta.period = 1e9 / s->o.hz;
	p->d.meta.start_time = s->start_real;
	p->d.meta.duration = st->elapsed_ns;
	snprintf(b, sizeof(b), "%d", (int)s->pid);
	if ((rc = sf_profile_set_prop(p, ctx, "capture.pid", b)) ||
	    (rc = sf_profile_set_prop(p, ctx, "capture.command", s->command)) ||
	    (rc = sf_profile_set_prop(p, ctx, "capture.unwind",
				      s->o.unwind == SFC_UNWIND_FP ? "fp"
								   : "dwarf")) ||
	    (rc = sf_profile_set_prop(p, ctx, "capture.stop",
				      s->o.all_stop ? "all" : "thread")))
		return rc;
	snprintf(b, sizeof(b), "%g", s->o.hz);
	if ((rc = sf_profile_set_prop(p, ctx, "capture.hz", b)))
		return rc;
	if ((rc = count_prop(p, ctx, "capture.missed", st->missed)) ||
	    (rc = count_prop(p, ctx, "capture.reused", st->reused)) ||
	    (rc = count_prop(p, ctx, "capture.ticks", st->ticks)) ||
	    (rc = count_prop(p, ctx, "capture.ticks_skipped",
			     st->ticks_late)) ||
	    (rc = count_prop(p, ctx, "capture.catchup", st->catchup)))
		return rc;
	if ((rc = count_prop(p, ctx, "capture.stopless", st->peeked)) ||
	    (rc = count_prop(p, ctx, "capture.stopless_perf",
			     st->perf_samples)) ||
	    (rc = count_prop(p, ctx, "capture.perf_armed",
			     st->perf_armed)))
		return rc;
	if (s->nprocs > 1) {
		/* every process sampled, in the order they joined */
		struct sf_sbuf sb = { 0 };
		bool ok = true;
		for (size_t i = 0; i < s->nprocs && ok; i++) {
			snprintf(b, sizeof(b), "%s%d", i ? "," : "",
				 (int)s->procs[i]->pid);
			ok = sf_sbuf_adds(&sb, b);
		}
		rc = !ok ? sf_error_nomem(ctx)
			 : sf_profile_set_prop(p, ctx, "capture.pids", sb.s);
		sf_sbuf_free(&sb);
		if (rc)
			return rc;
	}
	/* per thread: samples taken and missed (those due less those
	 * taken), "capture.taken:TID" and "capture.missed:TID" */
	for (size_t k = 0; k < s->nprocs; k++)
	for (size_t i = 0; i < s->procs[k]->nthreads; i++) {
		const struct sfc_cthread *c = &s->procs[k]->threads[i];
		char key[48];
		if (!c->sched && !c->taken)
			continue;
		snprintf(key, sizeof(key), "capture.taken:%d", (int)c->tid);
		if ((rc = count_prop(p, ctx, key, c->taken)))
			return rc;
		snprintf(key, sizeof(key), "capture.missed:%d", (int)c->tid);
		if ((rc = count_prop(p, ctx, key, c->sched > c->taken ?
						  c->sched - c->taken : 0)))
			return rc;
	}
	if (s->o.verify_reuse &&
	    ((rc = count_prop(p, ctx, "capture.reuse_verified",
			      st->reuse_verified)) ||
	     (rc = count_prop(p, ctx, "capture.reuse_mismatch",
			      st->reuse_mismatch)) ||
	     (rc = count_prop(p, ctx, "capture.stopless_verified",
			      st->peek_verified)) ||
	     (rc = count_prop(p, ctx, "capture.stopless_mismatch",
			      st->peek_mismatch))))
		return rc;
	if ((rc = sf_profile_set_prop(p, ctx, "capture.reuse",
				      s->reuse ? "schedstat" : "off")))
		return rc;
	if ((rc = header_props(s, ctx, p)))
		return rc;

	for (size_t i = 0; i < s->nprocs; i++)
		if ((rc = emit_proc(s->procs[i], ctx, p)))
			return rc;
	/* counted while the processes' addresses were named */
	if (s->o.verify_symbols &&
	    ((rc = count_prop(p, ctx, "capture.symbols_verified",
			      s->sym_verified)) ||
	     (rc = count_prop(p, ctx, "capture.symbols_mismatch",
			      s->sym_mismatch))))
		return rc;
	p->d.meta.source_format = sf_profile_str(p, ctx, "sfcapture");
	return 0;
}

void sfc_summary(const struct sfc_session *s, const struct sf_profile *p,
		 void (*line)(const char *text, void *arg), void *arg)
{
	const struct sfc_stats *st = sfc_stats(s);
	double secs = (double)st->elapsed_ns / 1e9;
	int64_t med, p99;
	char b[640];

	sfc_stop_time(s, &med, &p99);
	/* one line on why the capture ended early */
	if (st->ended[0]) {
		snprintf(b, sizeof(b), "the capture ended early after %.2f s: "
			 "%s", secs, st->ended);
		line(b, arg);
	} else if (st->target_exited) {
		snprintf(b, sizeof(b), "the target exited after %.2f s", secs);
		line(b, arg);
	}
	snprintf(b, sizeof(b), "%" PRIu64 " samples taken (%" PRIu64 " reused "
		 "from threads that had not run, %" PRIu64 " read from "
		 "sleeping threads and %" PRIu64 " from running ones without "
		 "a stop, %" PRIu64 " from stops that came late, %" PRIu64
		 " for skipped ticks from stops that held the thread then), %"
		 PRIu64 " missed, from %u threads in %.2f s", st->samples,
		 st->reused, st->peeked, st->perf_samples, st->late,
		 st->catchup, st->missed, st->threads_seen, secs);
	line(b, arg);
	snprintf(b, sizeof(b), "target stopped per sample: median %.0f us, "
		 "p99 %.0f us", (double)med / 1e3, (double)p99 / 1e3);
	line(b, arg);
	const char *py = sf_profile_prop(p, "capture.python_samples");
	if (py) {
		snprintf(b, sizeof(b), "%s of %" PRIu64 " samples had Python "
			 "frames", py, st->samples);
		line(b, arg);
	}
}
