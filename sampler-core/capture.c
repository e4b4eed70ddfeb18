/*
 * capture.c - the sampling loop (see capture.h for the protocol): each
 * tick lists the threads, counts again those that have not run (reuse),
 * has the others stopped and read (stop.c), unwinds the copies with the
 * target running again (unwind.c), and interns the stacks; sfc_emit
 * turns them into a profile.  Every ptrace request comes from the thread
 * that called sfc_run; SIGCHLD stays blocked and is only the wake-up of
 * the dispatcher (stop.c).
 */
#include "capture_int.h"
#include "strbuf.h"
#include "source.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef PTRACE_EVENT_STOP
#define PTRACE_EVENT_STOP 128
#endif

int64_t sfc__mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void sfc_options_init(struct sfc_options *o)
{
	memset(o, 0, sizeof(*o));
	o->hz = 100;
	o->unwind = SFC_UNWIND_DWARF;
	o->stack_bytes = 32 * 1024;
	o->max_frames = 512;
	o->stop_timeout_ns = 20 * 1000000;
}

/* Read a small /proc file into buf (NUL-terminated); -1 with errno. */
ssize_t sfc__read_small(const char *path, char *buf, size_t size)
{
	int fd;
	ssize_t n, got = 0;

	do
		fd = open(path, O_RDONLY | O_CLOEXEC);
	while (fd < 0 && errno == EINTR);
	if (fd < 0)
		return -1;
	while ((size_t)got + 1 < size) {
		n = read(fd, buf + got, size - 1 - (size_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	close(fd);
	buf[got] = 0;
	return got;
}

bool sfc__task_stat(const struct sfc_session *s, pid_t tid,
		    struct sfc_stat *out)
{
	char path[64], buf[512];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)s->pid,
		 (int)tid);
	ssize_t n = sfc__read_small(path, buf, sizeof(buf));
	return n > 0 && !sfc_parse_stat(buf, (size_t)n, out) &&
	       out->state != 'Z' && out->state != 'X';
}

/* ----- interning: threads, addresses, stack nodes ----- */

static bool thread_eq(const void *c, uint32_t id, const void *key)
{
	const struct sfc_session *s = c;

	return s->threads[id].tid == *(const pid_t *)key;
}

static int thread_get(struct sfc_session *s, pid_t tid, const char *name,
		      uint32_t *out)
{
	uint64_t h = sf_hash(&tid, sizeof(tid));
	uint32_t id;

	if (sf_idx_find(&s->thread_idx, h, thread_eq, s, &tid, &id)) {
		/* a thread may rename itself: the last name wins */
		if (strcmp(s->threads[id].name, name))
			snprintf(s->threads[id].name,
				 sizeof(s->threads[id].name), "%s", name);
		*out = id;
		return 0;
	}
	if (s->nthreads % 64 == 0) {
		void *q = sf_reallocarray(s->threads, s->nthreads + 64,
					  sizeof(*s->threads));
		if (!q)
			return -1;
		s->threads = q;
	}
	id = (uint32_t)s->nthreads++;
	memset(&s->threads[id], 0, sizeof(s->threads[id]));
	s->threads[id].tid = tid;
	s->threads[id].fd = -1;
	s->threads[id].pfd = -1;
	snprintf(s->threads[id].name, sizeof(s->threads[id].name), "%s", name);
	if (!sf_idx_insert(&s->thread_idx, h, id))
		return -1;
	s->st.threads_seen = (uint32_t)s->nthreads;
	*out = id;
	return 0;
}

static bool thread_find(struct sfc_session *s, pid_t tid, uint32_t *out)
{
	return sf_idx_find(&s->thread_idx, sf_hash(&tid, sizeof(tid)),
			   thread_eq, s, &tid, out);
}

static bool addr_eq(const void *c, uint32_t id, const void *key)
{
	const struct sfc_session *s = c;
	const uint64_t *k = key;

	return id != SFC_ADDR_TRUNCATED && s->addrs[id].pc == k[0] &&
	       s->addrs[id].gen == k[1];
}

static size_t addr_cap(size_t n)
{
	size_t c = 64;

	while (c < n)
		c *= 2;
	return c;
}

static int addr_get(struct sfc_session *s, uint64_t pc, uint32_t *out)
{
	uint64_t key[2] = { pc, s->gen };
	uint64_t h = sf_hash(key, sizeof(key));
	uint32_t id;

	if (sf_idx_find(&s->addr_idx, h, addr_eq, s, key, &id)) {
		*out = id;
		return 0;
	}
	if (s->naddrs + 1 > addr_cap(s->naddrs) || !s->addrs) {
		void *q = sf_reallocarray(s->addrs, addr_cap(s->naddrs + 1),
					  sizeof(*s->addrs));
		if (!q)
			return -1;
		s->addrs = q;
	}
	id = (uint32_t)s->naddrs++;
	s->addrs[id].pc = pc;
	s->addrs[id].gen = s->gen;
	s->addrs[id].mod = s->dwfl ? dwfl_addrmodule(s->dwfl, pc) : NULL;
	if (!s->addrs[id].mod)
		s->module_miss = true;
	if (!sf_idx_insert(&s->addr_idx, h, id))
		return -1;
	*out = id;
	return 0;
}

static bool node_eq(const void *c, uint32_t id, const void *key)
{
	const struct sfc_session *s = c;
	const struct sfc_node *k = key;

	return s->nodes[id].parent == k->parent && s->nodes[id].addr == k->addr;
}

static int node_get(struct sfc_session *s, uint32_t parent, uint32_t addr,
		    uint32_t *out)
{
	struct sfc_node k = { parent, addr };
	uint64_t h = sf_hash_u64(parent, addr);
	uint32_t id;

	if (sf_idx_find(&s->node_idx, h, node_eq, s, &k, &id)) {
		*out = id;
		return 0;
	}
	if (s->nnodes + 1 > addr_cap(s->nnodes) || !s->nodes) {
		void *q = sf_reallocarray(s->nodes, addr_cap(s->nnodes + 1),
					  sizeof(*s->nodes));
		if (!q)
			return -1;
		s->nodes = q;
	}
	id = (uint32_t)s->nnodes++;
	s->nodes[id] = k;
	if (!sf_idx_insert(&s->node_idx, h, id))
		return -1;
	*out = id;
	return 0;
}

/* The nice value of the sampling thread during sfc_run (no_boost). */
#define SFC_BOOST_NICE (-10)

/* ----- one tick ----- */

static int add_sample(struct sfc_session *s, struct sf_ctx *ctx,
		      uint32_t tidx, uint32_t node, char state, int64_t time,
		      enum sfc_how how, uint32_t kern, uint32_t py)
{
	if (sf_grow(&s->samples, &s->capsamples, s->nsamples + 1,
		  sizeof(*s->samples)))
		return sf_error_nomem(ctx);
	struct sfc_sample *x = &s->samples[s->nsamples++];
	x->time = time - s->start_mono;
	x->thread = tidx;
	x->stack = node;
	x->state = state;
	x->how = (unsigned char)how;
	s->threads[tidx].taken++;
	x->kern = kern;
	x->py = py;
	s->st.samples++;
	s->st.reused += how == SFC_REUSED;
	return 0;
}

/* Inside a system call that the kernel restarts once the stop is over?
 * Then the thread goes back to the same wait with the same registers
 * (only rax and the pc are rewound, and the pc comes back). */
static bool in_restart(const sfc_regs *r)
{
#if defined(__x86_64__)
	long long ax = (long long)r->rax;

	return (long long)r->orig_rax >= 0 &&
	       (ax == -512 || ax == -513 || ax == -514 || ax == -516);
#else
	return false;
#endif
}

/* Keep what the unwinder read, for the reuse checks of later ticks. */
static int keep_copy(struct sfc_session *s, struct sfc_cthread *c,
		     const struct sfc_thr *t, const unsigned char *stack)
{
	size_t len = 0;

	if (s->unw_hi > t->stack_base)
		len = (size_t)(s->unw_hi - t->stack_base);
	if (len > t->stack_len)
		len = t->stack_len;
	if (sf_grow(&c->copy, &c->copy_cap, len ? len : 1, 1))
		return -1;
	memcpy(c->copy, stack, len);
	c->copy_base = t->stack_base;
	c->copy_len = len;
	c->regs = t->regs;
	c->cand = in_restart(&t->regs);
	return 0;
}

/* Did the unwinding just done pass through code no module covers, while
 * the memory map may be newer than our modules?  Just after a start or an
 * exec the dynamic linker is still mapping the libraries: a thread in
 * read() inside a libc we have not reported yet has no CFI, and its
 * callers would be lost ("[unknown] (0x0)").  Then report the modules
 * again, at most once per tick, and without the 100 ms wait of tick()
 * while the map is settling; a pc that stays unknown after a refresh (JIT
 * code) ends the settling.  True when the stack should be unwound again. */
static bool refresh_for(struct sfc_session *s)
{
	size_t i;

	if (!s->dwfl || s->refresh_tick == s->tickno)
		return false;
	for (i = 0; i < s->nframes; i++)
		if (!dwfl_addrmodule(s->dwfl, s->frames[i]))
			break;
	if (i == s->nframes)
		return false;
	if (!s->settling && sfc__mono() - s->last_refresh <= 100000000)
		return false;
	uint64_t pc = s->frames[i];
	sfc__dwfl_refresh(s);
	s->refresh_tick = s->tickno;
	s->last_refresh = sfc__mono();
	s->settling = dwfl_addrmodule(s->dwfl, pc) != NULL;
	return s->settling;
}

static bool exec_changed(struct sfc_session *s);
static int on_exec(struct sfc_session *s, struct sf_ctx *ctx);

/* Before unwinding t: make the modules cover its leaf pc, or prove that
 * no mapped file does.  Modules read before t's stop may lack the
 * library it runs in (a thread's first instructions in a libc the
 * dynamic linker mapped after our last read, a dlopen, an exec since the
 * tick began), and unwinding from a pc in no module guesses (rbp, [sp]):
 * on a new thread's stack those words are stale.  So the map is read
 * again, unless it was read after t's stop already, or t's page stayed
 * in no module after such a read (JIT code: no refresh every tick).
 * *fresh is false when the modules could not be read (t's leaf is then
 * all there is to record). */
static int leaf_check(struct sfc_session *s, struct sf_ctx *ctx,
		      const struct sfc_thr *t, bool *fresh)
{
	uint64_t pc = SFC_PC(t->regs), pg = pc >> 12;
	int rc;

	*fresh = true;
	if (s->dwfl && dwfl_addrmodule(s->dwfl, pc))
		return 0;
	if (s->anon_pg[pg % SFC_ANON] == pg + 1)
		return 0;
	if (s->map_seq == t->map_seq) {
		if (exec_changed(s)) {
			if ((rc = on_exec(s, ctx)))
				return rc;
		} else if (s->dwfl) {
			sfc__dwfl_refresh(s);
			s->last_refresh = sfc__mono();
		}
	}
	if (!s->dwfl || s->map_seq == t->map_seq) {
		*fresh = false;
		return 0;
	}
	if (!dwfl_addrmodule(s->dwfl, pc))
		s->anon_pg[pg % SFC_ANON] = pg + 1;
	return 0;
}

/* Intern s->frames (leaf first) as a stack node, under [truncated] when
 * incomplete; *known: every frame is in a known module. */
static int intern(struct sfc_session *s, struct sf_ctx *ctx, bool complete,
		  uint32_t *out, bool *known)
{
	uint32_t node = 0, a;

	if (!complete && node_get(s, node, SFC_ADDR_TRUNCATED, &node))
		return sf_error_nomem(ctx);
	*known = true;
	for (size_t i = s->nframes; i-- > 0;) {
		if (addr_get(s, s->frames[i], &a) || node_get(s, node, a, &node))
			return sf_error_nomem(ctx);
		*known &= s->addrs[a].mod != NULL;
	}
	*out = node;
	return 0;
}

/* After a stop that followed a read without a stop (verify_reuse): when
 * schedstat read just after the interrupt still had the read's values
 * (window_start moved win_lo to the read), the thread did not run in
 * between, and the two stacks must be one. */
static void verify_peek(struct sfc_session *s, const struct sfc_thr *t,
			uint32_t node)
{
	const struct sfc_cthread *c = &s->threads[t->tidx];

	if (!t->ck || t->win_lo != t->ck_time)
		return;
	if (node == c->node)
		s->st.peek_verified++;
	else
		s->st.peek_mismatch++;
}

/* After unwinding a copy of c: a complete stack moves c->stack_hi up to
 * the highest word read; a copy that ended there and proved too short
 * (the unwinder asked past it) turns short copies off for the thread. */
static void stack_end(struct sfc_session *s, struct sfc_cthread *c,
		      bool complete)
{
	if (!complete && s->unw_short)
		c->stack_hi = UINT64_MAX;
	else if (complete && c->stack_hi != UINT64_MAX &&
		 s->unw_hi > c->stack_hi)
		c->stack_hi = s->unw_hi;
}

static int settle(struct sfc_session *s, struct sf_ctx *ctx,
		  struct sfc_thr *t, const unsigned char *stack, uint32_t node,
		  bool complete, bool known, enum sfc_how how);

static int record(struct sfc_session *s, struct sf_ctx *ctx,
		  struct sfc_thr *t, const unsigned char *stack)
{
	struct sfc_cthread *c = &s->threads[t->tidx];
	bool fresh, known;
	uint32_t node;
	int rc = leaf_check(s, ctx, t, &fresh);

	if (rc)
		return rc;
	bool complete = sfc__unwind(s, t, stack, fresh);
	if (refresh_for(s))
		complete = sfc__unwind(s, t, stack, fresh);
	if (!complete) {
		s->st.truncated++;
		sf_warn(ctx, "capture.truncated",
			"a stack could not be unwound to its end (corrupt "
			"stack, missing unwind info, or deeper than "
			"--stack-bytes or --stack-frames allow: raise them); "
			"it is marked [truncated]");
	}
	stack_end(s, c, complete);
	if ((rc = intern(s, ctx, complete, &node, &known)))
		return rc;
	return settle(s, ctx, t, stack, node, complete, known, SFC_STOP);
}

/* The rest of record, once the stack is a node: the audits, the window,
 * the copy kept for reuse, the sample. */
static int settle(struct sfc_session *s, struct sf_ctx *ctx,
		  struct sfc_thr *t, const unsigned char *stack, uint32_t node,
		  bool complete, bool known, enum sfc_how how)
{
	struct sfc_cthread *c = &s->threads[t->tidx];

	if (t->verify) {
		if (node == c->node)
			s->st.reuse_verified++;
		else
			s->st.reuse_mismatch++;
	}
	if (t->verify_peek)
		verify_peek(s, t, node);
	/* kernel.c: the call read before the stop is this stop's only if
	 * the stop interrupted it */
	if (how != SFC_STOP || !sfc__kern_match(s, t->kern, &t->regs))
		t->kern = 0;
	if (how != SFC_STOP)
		t->py = 0;
	c->have = false;
	c->base = false;
	if (t->win) {
		if (sf_grow(&s->wins, &s->capwins, s->nwins + 1,
			    sizeof(*s->wins)))
			return sf_error_nomem(ctx);
		s->wins[s->nwins++] = t->tidx;
		c->win = true;
		c->win_lo = t->win_lo;
		c->win_hi = t->t_rel;
		c->win_node = node;
		c->win_state = t->state;
		c->win_trunc = !complete;
		c->win_kern = t->kern;
		c->win_py = t->py;
	}
	/* a frame outside every known module may be a library not reported
	 * yet (just after an exec or a dlopen): unwind it again next time */
	if (s->reuse && known) {
		if (keep_copy(s, c, t, stack))
			return sf_error_nomem(ctx);
		c->node = node;
		c->truncated = !complete;
		c->state = t->state;
		c->kern = t->kern;
		c->py = t->py;
		c->have = true;
	}
	return add_sample(s, ctx, t->tidx, node, t->state, t->t_int, how,
			  t->kern, t->py);
}

/* Record the late stops read since the last tick (take_late): each was
 * counted missed by its tick and becomes a sample at that tick's time. */
static int record_late(struct sfc_session *s, struct sf_ctx *ctx)
{
	int rc = 0;
	size_t i;

	for (i = 0; i < s->nlateq && !rc; i++) {
		struct sfc_late *l = &s->late[i];
		uint64_t trunc = s->st.truncated;
		l->t.verify = false;
		/* its tick's window is paid by sfc__owe and below */
		l->t.win = false;
		if ((rc = record(s, ctx, &l->t, l->stack)))
			break;
		s->st.missed--;
		s->st.late++;
		/* the same stack pays every tick that found it pending */
		const struct sfc_sample *x = &s->samples[s->nsamples - 1];
		uint32_t node = x->stack, kern = x->kern, py = x->py;
		trunc = s->st.truncated - trunc;
		for (size_t k = 0; k < s->nowed && !rc; k++) {
			const struct sfc_owed *w = &s->owed[k];
			if (w->tid != l->t.tid)
				continue;
			if ((rc = add_sample(s, ctx, l->t.tidx, node, w->state,
					     w->at, SFC_LATE, kern, py)))
				break;
			s->st.missed--;
			s->st.late++;
			s->st.truncated += trunc;
		}
	}
	for (i = 0; i < s->nlateq; i++)
		free(s->late[i].stack);
	s->nlateq = 0;
	/* what is owed to a thread no longer pending stays missed (it
	 * exited, or its stop came when no copy could be kept) */
	size_t keep = 0;
	for (size_t k = 0; k < s->nowed; k++)
		if (sfc__is_pending(s, s->owed[k].tid))
			s->owed[keep++] = s->owed[k];
	s->nowed = keep;
	return rc;
}

static bool wanted(const struct sfc_session *s, pid_t tid)
{
	if (!s->o.tids)
		return true;
	for (size_t i = 0; i < s->o.ntids; i++)
		if (s->o.tids[i] == tid)
			return true;
	return false;
}

/* Run time (ns) and timeslice count of a thread, from its schedstat file
 * (kept open: a pread costs a fraction of an open).  -1 when the thread
 * is gone or the file cannot be read. */
static int sched_read(struct sfc_session *s, struct sfc_cthread *c,
		      uint64_t *run, uint64_t *slices)
{
	char path[80], buf[96];
	unsigned long long r, w, n;
	ssize_t got;

	if (c->fd < 0) {
		snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat",
			 (int)s->pid, (int)c->tid);
		c->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (c->fd < 0)
			return -1;
	}
	got = pread(c->fd, buf, sizeof(buf) - 1, 0);
	if (got <= 0) {
		close(c->fd);
		c->fd = -1;
		return -1;
	}
	buf[got] = 0;
	if (sscanf(buf, "%llu %llu %llu", &r, &w, &n) != 3)
		return -1;
	*run = r;
	*slices = n;
	return 0;
}

/* Is the thread, right now, blocked in the system call its last stop
 * interrupted, with every input of the last unwinding unchanged?  See
 * capture.h for the argument.  On success the current schedstat becomes
 * the baseline of later ticks. */
static bool reuse_check(struct sfc_session *s, struct sfc_cthread *c,
			uint64_t run, uint64_t slices)
{
#if defined(__x86_64__)
	char path[80], buf[512];
	unsigned long long v[9];
	uint64_t run2, slices2;
	const sfc_regs *r = &c->regs;

	c->base = false;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", (int)s->pid,
		 (int)c->tid);
	if (sfc__read_small(path, buf, sizeof(buf)) <= 0)
		return false;
	/* "NR ARG1..ARG6 SP PC" while blocked in a call; "running" or
	 * "-1 SP PC" otherwise */
	if (sscanf(buf, "%llu %llx %llx %llx %llx %llx %llx %llx %llx",
		   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7],
		   &v[8]) != 9)
		return false;
	/* -ERESTART_RESTARTBLOCK comes back as restart_syscall */
	unsigned long long nr = (long long)r->rax == -516 ? 219 : r->orig_rax;
	if (v[0] != nr || v[1] != r->rdi || v[2] != r->rsi ||
	    v[3] != r->rdx || v[4] != r->r10 || v[5] != r->r8 ||
	    v[6] != r->r9 || v[7] != r->rsp || v[8] != r->rip)
		return false;
	if (sfc__read_mem(s->mem, c->copy_base, c->copy_len, s->cmp) !=
		    c->copy_len ||
	    memcmp(s->cmp, c->copy, c->copy_len))
		return false;
	/* kernel.c: back in the call its stop interrupted, the stop's
	 * record missing (read too late or not at all): read it now, inside
	 * the schedstat proof */
	uint32_t kern = c->kern;
	if (!kern && sfc__kern_read(s, NULL, c->tid, 0, (long long)r->orig_rax,
				    &kern))
		kern = 0;
	/* the state now: the stop may have found it runnable only because
	 * the previous sample's detach had just woken it */
	struct sfc_stat stt;
	if (!sfc__task_stat(s, c->tid, &stt))
		return false;
	if (sched_read(s, c, &run2, &slices2) || run2 != run ||
	    slices2 != slices)
		return false;
	c->state = stt.state;
	/* the name too (found, so nothing is allocated: c stays valid) */
	uint32_t id;
	if (thread_get(s, c->tid, stt.comm, &id))
		return false;
	c->base = true;
	c->kern = kern;
	c->base_time = sfc__mono();
	c->run = run;
	c->slices = slices;
	return true;
#else
	return false;
#endif
}

/* Read a thread asleep in a system call without stopping it (see
 * "Reading without a stop" in capture.h): schedstat, then the registers
 * /proc/.../syscall shows and the stack, then schedstat again; the copy is
 * unwound at once with only those registers.  *done when the sample was
 * taken; otherwise the thread is stopped as usual (and, with
 * verify_reuse, t->verify_peek asks that stop to be compared). */
static int peek(struct sfc_session *s, struct sf_ctx *ctx, struct sfc_thr *t,
		bool *done)
{
	*done = false;
#if defined(__x86_64__)
	struct sfc_cthread *c = &s->threads[t->tidx];
	char path[80], buf[512];
	unsigned long long v[9];
	uint64_t run, slices, run2, slices2;
	uint32_t node;
	bool known;
	int rc;

	if (!s->dwfl || sched_read(s, c, &run, &slices))
		return 0;
	int64_t t0 = sfc__mono();
	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", (int)s->pid,
		 (int)t->tid);
	/* "NR ARG1..ARG6 SP PC" only while blocked in a call */
	if (sfc__read_small(path, buf, sizeof(buf)) <= 0 ||
	    sscanf(buf, "%llu %llx %llx %llx %llx %llx %llx %llx %llx",
		   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7],
		   &v[8]) != 9 || !dwfl_addrmodule(s->dwfl, v[8]))
		return 0;
	sfc_regs *r = &t->regs;
	memset(r, 0, sizeof(*r));
	r->orig_rax = v[0];
	r->rax = (unsigned long long)-38;  /* -ENOSYS, as inside any call */
	r->rdi = v[1];
	r->rsi = v[2];
	r->rdx = v[3];
	r->r10 = v[4];
	r->r8 = v[5];
	r->r9 = v[6];
	r->rsp = v[7];
	r->rip = v[8];
	t->map_seq = s->map_seq;
	sfc__copy_stack(s, t, s->cmp);
	/* kernel.c: inside the schedstat proof, as the stack is */
	if ((rc = sfc__kern_read(s, ctx, t->tid, c->kern,
				 c->have ? (long long)c->regs.orig_rax : -1,
				 &t->kern)))
		return rc;
	sfc__py_read(s, t);     /* python.c: likewise */
	if (sched_read(s, c, &run2, &slices2) || run2 != run ||
	    slices2 != slices)
		return 0;
	t->partial = true;
	bool complete = sfc__unwind(s, t, s->cmp, true);
	t->partial = false;
	if (!complete) {
		if (s->unw_short)
			stack_end(s, c, false);
		return 0;
	}
	stack_end(s, c, true);
	if ((rc = intern(s, ctx, true, &node, &known)))
		return rc;
	if (!known)
		return 0;
	int64_t t1 = sfc__mono();
	/* the scan's read with the same values moves the proof back to it */
	int64_t lo = t->ck && t->ck_run == run && t->ck_slices == slices
		     ? t->ck_time : t0;
	c->have = c->base = false;
	if (s->o.verify_reuse) {
		/* stop it anyway; the stop's window tells whether it ran */
		c->node = node;
		t->verify_peek = true;
		t->ck = true;
		t->ck_run = run;
		t->ck_slices = slices;
		t->ck_time = lo;
		return 0;
	}
	/* [lo, t1] is this read's window: ticks the sampler skipped inside
	 * it get its stack (fill_windows).  The reuse baseline starts after
	 * it, so no skipped tick is paid twice; no stop woke the thread, so
	 * equal schedstat later means it still sleeps where it was read. */
	if (sf_grow(&s->wins, &s->capwins, s->nwins + 1, sizeof(*s->wins)) ||
	    keep_copy(s, c, t, s->cmp))
		return sf_error_nomem(ctx);
	s->wins[s->nwins++] = t->tidx;
	c->win = true;
	c->win_lo = lo;
	c->win_hi = t1;
	c->win_node = node;
	c->win_state = t->state;
	c->win_trunc = false;
	c->win_kern = c->kern = t->kern;
	c->win_py = c->py = t->py;
	c->node = node;
	c->truncated = false;
	c->state = t->state;
	c->have = c->base = true;
	c->run = run;
	c->slices = slices;
	c->base_time = t1 + 1;
	if ((rc = add_sample(s, ctx, t->tidx, node, t->state, t0, SFC_PEEK,
			     t->kern, t->py)))
		return rc;
	s->st.peeked++;
	*done = true;
#endif
	return 0;
}

/* Read this tick's sleeping threads without a stop where that works
 * (peek); the others stay in s->cur to be stopped. */
static int peek_all(struct sfc_session *s, struct sf_ctx *ctx)
{
	size_t keep = 0;

	for (size_t i = 0; i < s->ncur; i++) {
		struct sfc_thr *t = &s->cur[i];
		bool done = false;
		if (t->state == 'S' && !t->verify) {
			int rc = peek(s, ctx, t, &done);
			if (rc)
				return rc;
		}
		if (!done)
			s->cur[keep++] = *t;
	}
	s->ncur = keep;
	return 0;
}

/* How long a tick waits for the samples of its armed perf events: a
 * thread on a CPU gives its sample after 10 us of its own time; one that
 * waits for a CPU is stopped instead, as before. */
#define SFC_PERF_WAIT 100000
/* Ticks a thread whose perf sample did not unwind is stopped without
 * arming its event first. */
#define SFC_PERF_BACKOFF 100

/* Sample this tick's running threads without a stop (perf.c): arm each
 * one's perf event, wait a moment for the samples, unwind them at once.
 * A thread whose sample did not come, or does not unwind completely to
 * its outermost frame (perf copies no red zone below sp), stays in s->cur
 * and is stopped as usual. */
static int perf_all(struct sfc_session *s, struct sf_ctx *ctx)
{
	size_t armed = 0, keep = 0, running = 0;
	int rc;

	/* a sample needs its thread on a CPU, and the sampler takes one
	 * while it waits: with as many runnable threads as CPUs or more,
	 * some would wait for a CPU and give no sample in time, so all are
	 * stopped as before */
	for (size_t i = 0; i < s->ncur; i++)
		running += s->cur[i].state == 'R';
	if (running >= s->ncpus)
		return 0;
	for (size_t i = 0; i < s->ncur; i++) {
		struct sfc_thr *t = &s->cur[i];
		struct sfc_cthread *c = &s->threads[t->tidx];
		t->armed = t->state == 'R' && !t->verify && s->perf &&
			   s->tickno >= c->perf_after && sfc__perf_arm(s, c);
		armed += t->armed;
	}
	sfc__perf_refused(s, ctx);
	if (!armed)
		return 0;
	s->st.perf_armed += armed;
	int64_t deadline = sfc__mono() + SFC_PERF_WAIT;
	for (size_t left = armed; left;) {
		for (size_t i = 0; i < s->ncur; i++) {
			struct sfc_thr *t = &s->cur[i];
			if (!t->armed || t->have)
				continue;
			if (sfc__perf_take(s, &s->threads[t->tidx], t,
					   s->stacks + i * s->slot)) {
				t->have = true;
				left--;
			}
		}
		if (left && sfc__mono() >= deadline)
			break;
	}
	for (size_t i = 0; i < s->ncur; i++) {
		struct sfc_thr *t = &s->cur[i];
		struct sfc_cthread *c = &s->threads[t->tidx];
		unsigned char *stack = s->stacks + i * s->slot;
		if (t->armed && !t->have) {
			/* not on a CPU: disarm; a sample that still comes is
			 * dropped by the next arming */
			sfc__perf_cancel(c);
		} else if (t->armed) {
			uint32_t node;
			bool known;
			t->strict = true;
			bool complete = sfc__unwind(s, t, stack, true);
			t->strict = false;
			t->have = false;
			if (complete) {
				if ((rc = intern(s, ctx, true, &node, &known)))
					return rc;
				if (known) {
					stack_end(s, c, true);
					t->win = false;
					if ((rc = settle(s, ctx, t, stack, node,
							 true, true, SFC_PERF)))
						return rc;
					s->st.perf_samples++;
					continue;
				}
			}
			/* where it runs, its stack needs what perf does not
			 * copy (the red zone, an unknown module): stop it
			 * for a while without arming first */
			c->perf_after = s->tickno + SFC_PERF_BACKOFF;
		}
		t->armed = false;
		s->cur[keep++] = *t;
	}
	s->ncur = keep;
	return 0;
}

/* May the thread's last stack be counted again now?  Sets *verify when
 * it may but verify_reuse wants a real stop to compare with, *old when
 * the baseline predates this tick (the thread has not run since the
 * previous tick either). */
static bool reusable(struct sfc_session *s, struct sfc_cthread *c,
		     bool *verify, bool *old)
{
	uint64_t run, slices;

	*old = false;
	if (!c->have || sched_read(s, c, &run, &slices))
		return false;
	*old = c->base && run == c->run && slices == c->slices;
	if (!*old && !(c->cand && reuse_check(s, c, run, slices))) {
		c->base = false;
		return false;
	}
	/* a new baseline with the values a sweep saw: the thread has been
	 * on no CPU since that read, so it held the copy since then too */
	if (!*old && c->ck && c->ck_run == run && c->ck_slices == slices &&
	    c->ck_time < c->base_time) {
		c->base_time = c->ck_time;
		*old = true;
	}
	if (s->o.verify_reuse) {
		*verify = true;
		return false;
	}
	return true;
}

/* Pay a tick skipped at `at` (the sampler fell behind) from the last
 * tick's stops, for each thread counted in this tick whose window
 * [win_lo, win_hi] holds `at`.  Why such a sample is exact, not an
 * estimate: from PTRACE_INTERRUPT to PTRACE_DETACH a tracee runs none of
 * its own code (it reaches its stop before it returns to user space,
 * then stays stopped until the detach; win_hi is read before the
 * detach), so its user registers and stack are the ones the stop read
 * throughout; and when schedstat (run time and timeslice count, which
 * grow whenever the thread is on a CPU, the current run included) read
 * at the scan (ck_time, taken once the read had ended) is unchanged when
 * read again after the interrupt was sent, the thread was not on a CPU
 * at any moment in between, so it already held that state at ck_time
 * (win_lo).  Nothing is inferred outside the window: a thread that ran
 * between its detach and `at` (every stop wakes a blocked thread, which
 * then restarts its call) is not paid here, only through a baseline
 * (base_time <= at, filled by scan), so the two never pay the same tick.
 * *filled counts the samples added. */
static int fill_windows(struct sfc_session *s, struct sf_ctx *ctx,
			int64_t at, uint64_t *filled)
{
	for (size_t i = 0; i < s->nwins; i++) {
		struct sfc_cthread *c = &s->threads[s->wins[i]];
		if (c->listed != s->tickno || !c->win || at < c->win_lo ||
		    at > c->win_hi)
			continue;
		int rc = add_sample(s, ctx, s->wins[i], c->win_node,
				    c->win_state, at, SFC_CATCHUP,
				    c->win_kern, c->win_py);
		if (rc)
			return rc;
		s->st.catchup++;
		s->st.truncated += c->win_trunc;
		(*filled)++;
	}
	return 0;
}

/* The modules changed: stacks unwound before may read differently now. */
static void forget_stacks(struct sfc_session *s)
{
	for (size_t i = 0; i < s->nthreads; i++) {
		s->threads[i].have = s->threads[i].base = false;
		s->threads[i].stack_hi = 0;
	}
}

/* Threads gone since the last tick: release their file and copy. */
static void forget_gone(struct sfc_session *s)
{
	for (size_t i = 0; i < s->nthreads; i++) {
		struct sfc_cthread *c = &s->threads[i];
		if (c->seen == s->tickno)
			continue;
		/* its id may come back as another thread's */
		c->stack_hi = 0;
		sfc__perf_close(c);
		if (c->fd < 0 && !c->copy)
			continue;
		if (c->fd >= 0)
			close(c->fd);
		c->fd = -1;
		free(c->copy);
		c->copy = NULL;
		c->copy_cap = 0;
		c->have = c->base = false;
	}
}

/* The threads the last scan listed are due n more samples each (per
 * thread, sched - taken is what it missed). */
static void sched_listed(struct sfc_session *s, uint64_t n)
{
	for (size_t i = 0; i < s->nthreads; i++)
		if (s->threads[i].listed == s->tickno)
			s->threads[i].sched += n;
}

static int scan(struct sfc_session *s, struct sf_ctx *ctx)
{
	char path[64];
	struct dirent *de;
	size_t alive = 0, listed = 0;
	DIR *d;
	int rc;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)s->pid);
	s->ncur = 0;
	s->tickno++;
	if (!(d = opendir(path))) {
		s->st.target_exited = true;
		return 0;
	}
	while ((de = readdir(d))) {
		struct sfc_stat stt;
		char *end;
		long tid = strtol(de->d_name, &end, 10);
		uint32_t id;
		bool verify = false;
		if (*end || tid <= 0)
			continue;
		bool known = thread_find(s, (pid_t)tid, &id);
		if (s->reuse && known && wanted(s, (pid_t)tid) &&
		    !sfc__is_pending(s, (pid_t)tid)) {
			struct sfc_cthread *c = &s->threads[id];
			bool old;
			c->seen = s->tickno;
			if (reusable(s, c, &verify, &old)) {
				/* it has not run: alive, and where it was */
				alive++;
				listed++;
				c->listed = s->tickno;
				if (sf_grow(&s->reu, &s->capreu,
					  s->nreu + 1, sizeof(*s->reu))) {
					closedir(d);
					return sf_error_nomem(ctx);
				}
				s->reu[s->nreu++] = id << 1 | old;
				continue;
			}
		}
		if (!sfc__task_stat(s, (pid_t)tid, &stt))
			continue;
		alive++;
		/* the memory of a process whose main thread exited is read
		 * through a live thread */
		if (s->leader_gone && s->mem_tick != s->tickno) {
			s->mem = (pid_t)tid;
			s->mem_tick = s->tickno;
		}
		if (!wanted(s, (pid_t)tid))
			continue;
		if (s->o.on_cpu && stt.state != 'R')
			continue;
		listed++;
		const struct sfc_thr *pt = sfc__pending_find(s, (pid_t)tid);
		if (known)
			s->threads[id].listed = s->tickno;
		if (pt) {
			/* owed: this tick, and the skipped ones since its
			 * interrupt (those are counted missed below) */
			int64_t t_int = pt->t_int;
			/* "t" is our own stop, on which it waits: its state
			 * is the one its tick found */
			if (stt.state == 't')
				stt.state = pt->state;
			s->st.missed++;
			for (uint64_t k = 0; k < s->nlate; k++) {
				int64_t at = s->late_first +
					     (int64_t)k * s->period;
				if (at >= t_int &&
				    sfc__owe(s, (pid_t)tid, stt.state, at)) {
					closedir(d);
					return sf_error_nomem(ctx);
				}
			}
			if (sfc__owe(s, (pid_t)tid, stt.state, sfc__mono())) {
				closedir(d);
				return sf_error_nomem(ctx);
			}
			continue;
		}
		if (sf_grow(&s->cur, &s->capcur, s->ncur + 1,
			    sizeof(*s->cur))) {
			closedir(d);
			return sf_error_nomem(ctx);
		}
		struct sfc_thr *t = &s->cur[s->ncur];
		memset(t, 0, sizeof(*t));
		t->tid = (pid_t)tid;
		t->state = stt.state;
		t->verify = verify;
		if (thread_get(s, t->tid, stt.comm, &t->tidx)) {
			closedir(d);
			return sf_error_nomem(ctx);
		}
		struct sfc_cthread *c = &s->threads[t->tidx];
		c->seen = c->listed = s->tickno;
		c->ck = false;
		/* the start of this stop's window (window_start, fill_windows),
		 * or of a read without a stop (peek) */
		if (s->reuse && !sched_read(s, c, &t->ck_run, &t->ck_slices)) {
			t->ck = true;
			t->ck_time = sfc__mono();
		}
		s->ncur++;
	}
	closedir(d);
	if (!alive)
		s->st.target_exited = true;
	s->st.threads_now = (uint32_t)listed;
	/* Ticks skipped because we fell behind: a thread that has not run
	 * since before the previous tick held its stack all along, so those
	 * samples are exact too, and so are those of a thread whose last stop
	 * held it at that tick (fill_windows); the others' are missed. */
	uint64_t filled = 0;
	for (uint64_t k = 0; k < s->nlate; k++) {
		int64_t at = s->late_first + (int64_t)k * s->period;
		if ((rc = fill_windows(s, ctx, at, &filled)))
			return rc;
		for (size_t i = 0; i < s->nreu; i++) {
			struct sfc_cthread *c = &s->threads[s->reu[i] >> 1];
			/* the baseline must be older than the sample */
			if (!(s->reu[i] & 1) || c->base_time > at)
				continue;
			filled++;
			s->st.truncated += c->truncated;
			if ((rc = add_sample(s, ctx, s->reu[i] >> 1, c->node,
					     c->state, at, SFC_REUSED,
					     c->kern, c->py)))
				return rc;
		}
	}
	s->st.missed += s->nlate * listed - filled;
	sched_listed(s, 1 + s->nlate);
	s->nlate = 0;
	s->nwins = 0;
	int64_t now = sfc__mono();
	for (size_t i = 0; i < s->nreu; i++) {
		uint32_t id = s->reu[i] >> 1;
		s->st.truncated += s->threads[id].truncated;
		if ((rc = add_sample(s, ctx, id, s->threads[id].node,
				     s->threads[id].state, now, SFC_REUSED,
				     s->threads[id].kern,
				     s->threads[id].py)))
			return rc;
	}
	s->nreu = 0;
	forget_gone(s);
	if (s->capcur * s->slot > 0 && s->ncur) {
		void *q = realloc(s->stacks, s->capcur * s->slot);
		if (!q)
			return sf_error_nomem(ctx);
		s->stacks = q;
	}
	return 0;
}

/* Did the target exec another program?  Compare /proc/PID/exe (path and
 * inode).  Returns true after the first call when it changed. */
static bool exec_changed(struct sfc_session *s)
{
	char path[64], exe[sizeof(s->exe)];
	struct stat sb;
	bool first = !s->exe[0];

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)s->mem);
	ssize_t n = readlink(path, exe, sizeof(exe) - 1);
	if (n < 0 || stat(path, &sb) < 0)
		return false;
	exe[n] = 0;
	/* a program that execs itself keeps path and inode: its auxiliary
	 * vector (entry point and random bytes' address, which ASLR moves)
	 * tells the images apart */
	char aux[1024];
	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)s->mem);
	ssize_t an = sfc__read_small(path, aux, sizeof(aux));
	uint64_t ah = an > 0 ? sf_hash(aux, (size_t)an) : 0;
	if (!first && !strcmp(exe, s->exe) &&
	    s->exe_ino == (unsigned long)sb.st_ino && (!ah || ah == s->auxv))
		return false;
	memcpy(s->exe, exe, (size_t)n + 1);
	s->exe_ino = (unsigned long)sb.st_ino;
	if (ah)
		s->auxv = ah;
	return !first;
}

/* After an exec: a new Dwfl for the new image; the old one is kept, its
 * modules still name the addresses sampled before. */
/* How long a memory map may stay unreadable after an exec before the
 * target counts as gone (a set-uid program we may not trace). */
#define SFC_EXEC_GRACE_NS 2000000000

/* Open the modules of the current image.  Just after an exec (and for a
 * command we just started, whose close-on-exec pipe closes before the
 * kernel has mapped the new program) /proc/PID/maps can be half built and
 * libdwfl fails on it: then the modules stay closed (s->dwfl NULL) and
 * the next call tries again, for SFC_EXEC_GRACE_NS.  False while closed. */
static bool open_modules(struct sfc_session *s, struct sf_ctx *ctx)
{
	if (s->dwfl)
		return true;
	if (!s->open_since)
		s->open_since = sfc__mono();
	if (!sfc__dwfl_open(s, ctx)) {
		s->open_since = 0;
		return true;
	}
	sf_error_clear(ctx);
	if (s->dwfl)
		dwfl_end(s->dwfl);
	s->dwfl = NULL;
	s->attached = false;
	if (sfc__mono() - s->open_since > SFC_EXEC_GRACE_NS)
		s->st.target_exited = true;
	return false;
}

/* After an exec: a new Dwfl for the new image; the old one is kept, its
 * modules still name the addresses sampled before. */
static int reload(struct sfc_session *s, struct sf_ctx *ctx)
{
	void *q = sf_reallocarray(s->old, s->nold + 1, sizeof(Dwfl *));

	if (!q)
		return sf_error_nomem(ctx);
	s->old = q;
	if (s->dwfl)
		s->old[s->nold++] = s->dwfl;
	s->dwfl = NULL;
	s->attached = false;
	s->gen++;
	s->open_since = 0;
	open_modules(s, ctx);
	return 0;
}

/* The target exec'd (exec_changed said so): the new image's modules, and
 * no stack of the old one is counted again. */
static int on_exec(struct sfc_session *s, struct sf_ctx *ctx)
{
	int rc;

	if ((rc = reload(s, ctx)))
		return rc;
	s->module_miss = false;
	s->last_refresh = sfc__mono();
	s->settling = true;
	forget_stacks(s);
	return 0;
}

/* Just after the interrupt: where the stop's window starts (see
 * fill_windows).  The read comes after PTRACE_INTERRUPT, so a thread
 * that the interrupt woke and that got a CPU before the read only loses
 * the early start (conservative); equal values mean it was on no CPU
 * from the scan's read to the interrupt. */
static void window_start(struct sfc_session *s, struct sfc_thr *t)
{
	uint64_t run, slices;

	t->win_lo = t->t_int;
	if (t->ps == PS_SEIZED && t->ck &&
	    !sched_read(s, &s->threads[t->tidx], &run, &slices) &&
	    run == t->ck_run && slices == t->ck_slices)
		t->win_lo = t->ck_time;
}

/* The tick overruns: read the schedstat of its threads already released,
 * keeping for each the earliest moment its current values were seen (a
 * thread's values only grow, so equal values later mean it was on no CPU
 * from that moment on).  A thread released a moment ago may not have
 * restarted its call yet: its values move later and this read proves
 * nothing; the next sweep may. */
static void sweep(struct sfc_session *s, size_t n)
{
	uint64_t run, slices;

	for (size_t i = 0; i < n; i++) {
		if (s->cur[i].ps != PS_DONE)
			continue;
		struct sfc_cthread *c = &s->threads[s->cur[i].tidx];
		if (sched_read(s, c, &run, &slices))
			continue;
		if (c->ck && run == c->ck_run && slices == c->ck_slices)
			continue;
		c->ck = true;
		c->ck_run = run;
		c->ck_slices = slices;
		c->ck_time = sfc__mono();
	}
}

static int order_cmp(const void *a, const void *b)
{
	const struct sfc_thr *x = a, *y = b;

	if (x->order != y->order)
		return x->order > y->order ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* Who is interrupted first: a tick that cannot finish in time (the
 * machine is busy) leaves pending, and counts missed, the threads
 * interrupted last, as those have the least time to reach their stop.
 * Running threads first (a sleeping one was read without a stop or
 * stops at once), and among them those that missed most so far; so the
 * misses do not keep falling on the threads that run. */
static void order_cur(struct sfc_session *s)
{
	for (size_t i = 0; i < s->ncur; i++) {
		const struct sfc_cthread *c = &s->threads[s->cur[i].tidx];
		uint64_t missed = c->sched > c->taken ? c->sched - c->taken : 0;
		s->cur[i].order = (uint64_t)(s->cur[i].state == 'R') << 62 |
				  (missed & ((UINT64_C(1) << 62) - 1));
	}
	if (s->ncur)   /* never qsort(NULL, 0): cur is unset before a thread */
		qsort(s->cur, s->ncur, sizeof(*s->cur), order_cmp);
}

static int tick(struct sfc_session *s, struct sf_ctx *ctx)
{
	int rc;

	sfc__drain(s);
	/* before an exec check: a late stack belongs to the image it was
	 * read from */
	if ((rc = record_late(s, ctx)))
		return rc;
	if (s->st.target_exited)
		return 0;
	if (exec_changed(s) && (rc = on_exec(s, ctx)))
		return rc;
	if (!open_modules(s, ctx)) {
		/* still inside the exec: nothing to unwind against yet */
		s->st.missed += s->st.threads_now;
		sched_listed(s, 1);
		return 0;
	}
	if (s->module_miss && sfc__mono() - s->last_refresh > 100000000) {
		sfc__dwfl_refresh(s);
		s->module_miss = false;
		s->last_refresh = sfc__mono();
		forget_stacks(s);
	}
	if ((rc = scan(s, ctx)) || s->st.target_exited)
		return rc;
	if (s->peek && (rc = peek_all(s, ctx)))
		return rc;
	/* python.c reads a thread's frames only while it is stopped */
	if (s->perf && !s->o.all_stop && !sfc__py_active(s) &&
	    (rc = perf_all(s, ctx)))
		return rc;
	order_cur(s);
	/* kernel.c: a blocked thread's call, before the stop interrupts it */
	for (size_t i = 0; i < s->ncur; i++) {
		struct sfc_thr *t = &s->cur[i];
		const struct sfc_cthread *c = &s->threads[t->tidx];
		if ((t->state == 'S' || t->state == 'D') &&
		    (rc = sfc__kern_read(s, ctx, t->tid, c->kern,
					 c->have ? (long long)c->regs.orig_rax
						 : -1, &t->kern)))
			return rc;
	}
	size_t sb = s->slot;
	if (s->o.all_stop) {
		int64_t t0 = sfc__mono();
		for (size_t i = 0; i < s->ncur; i++) {
			if ((rc = sfc__seize(s, ctx, &s->cur[i])))
				goto undo;
			window_start(s, &s->cur[i]);
		}
		for (size_t i = 0; i < s->ncur; i++)
			if (s->cur[i].ps == PS_SEIZED &&
			    (rc = sfc__wait_stopped(s, ctx, &s->cur[i],
					       s->o.stop_timeout_ns)))
				goto undo;
		for (size_t i = 0; i < s->ncur; i++)
			if (s->cur[i].ps == PS_STOPPED)
				sfc__grab(s, &s->cur[i], s->stacks + i * sb);
		for (size_t i = 0; i < s->ncur; i++)
			if (s->cur[i].ps == PS_STOPPED)
				sfc__release(s, &s->cur[i], t0);
	} else {
		/* Interrupt every thread that must be stopped, then copy and
		 * release each as soon as its stop arrives: the waits for the
		 * threads to reach their stops overlap (on a loaded machine a
		 * woken thread may wait milliseconds for a CPU), while each
		 * thread is paused only for its own copy.
		 * A thread not stopped within half a period (it waits for a
		 * CPU, or sleeps in D) is left pending: it runs no user code
		 * until its stop, so that stop pays this tick and the next
		 * ones it is still pending for (owe, record_late), and the
		 * ticks keep their schedule for the threads that run. */
		int64_t deadline = 0, wait = s->o.stop_timeout_ns;
		if (wait > s->period / 2)
			wait = s->period / 2;
		size_t first = 0;
		/* a sweep a quarter period before each tick this one overruns
		 * (only the reads that end before a tick serve it) */
		int64_t sweep_at = s->sched + s->period - s->period / 4;
		for (size_t i = 0; i < s->ncur; i++) {
			if ((rc = sfc__seize(s, ctx, &s->cur[i])))
				goto undo;
			window_start(s, &s->cur[i]);
			deadline = s->cur[i].t_int + wait;
			/* read the stops that came meanwhile: with hundreds
			 * of threads to interrupt, the first would otherwise
			 * stay stopped until the last was interrupted */
			while (sfc__dispatch_one(s, 0) > 0)
				;
			for (size_t j = first; j <= i; j++) {
				struct sfc_thr *t = &s->cur[j];
				if (t->ps == PS_STOPPED) {
					sfc__grab(s, t, s->stacks + j * sb);
					sfc__release(s, t, t->t_int);
				}
				if (t->ps != PS_SEIZED && j == first)
					first++;
			}
			if (s->reuse && sfc__mono() >= sweep_at) {
				sweep(s, i + 1);
				sweep_at += s->period;
			}
		}
		s->spinning = s->spin;
		s->spin_from = 0;
		for (;;) {
			bool waiting = false;
			for (size_t i = first; i < s->ncur; i++) {
				struct sfc_thr *t = &s->cur[i];
				if (t->ps == PS_STOPPED) {
					sfc__grab(s, t, s->stacks + i * sb);
					sfc__release(s, t, t->t_int);
				}
				if (t->ps == PS_SEIZED)
					waiting = true;
				else if (i == first)
					first++;
			}
			if (!waiting || sfc__dispatch_one(s, deadline) <= 0)
				break;
		}
		s->spinning = false;
		/* past the deadline: what stopped meanwhile is still read,
		 * the rest is left to the dispatcher */
		for (size_t i = first; i < s->ncur; i++)
			if (s->cur[i].ps == PS_SEIZED &&
			    (rc = sfc__wait_stopped(s, ctx, &s->cur[i], wait)))
				goto undo;
		for (size_t i = first; i < s->ncur; i++) {
			struct sfc_thr *t = &s->cur[i];
			if (t->ps == PS_STOPPED) {
				sfc__grab(s, t, s->stacks + i * sb);
				sfc__release(s, t, t->t_int);
			}
		}
	}
	/* the target runs again: unwind the copies */
	for (size_t i = 0; i < s->ncur; i++) {
		struct sfc_thr *t = &s->cur[i];
		if (t->have) {
			t->win = true;
			if ((rc = record(s, ctx, t, s->stacks + i * sb)))
				return rc;
		} else if (t->ps != PS_GONE) {
			s->st.missed++;
		} else {
			/* gone: it was not due */
			s->threads[t->tidx].sched--;
		}
	}
	return 0;
undo:
	/* never leave a thread seized: stop what we started */
	for (size_t i = 0; i < s->ncur; i++) {
		struct sfc_thr *t = &s->cur[i];
		if (t->ps == PS_SEIZED)
			sfc__wait_stopped(s, ctx, t, s->o.stop_timeout_ns);
		if (t->ps == PS_STOPPED)
			sfc__release(s, t, t->t_int);
	}
	return rc;
}

/* ----- public ----- */

/* "COMM [PPID]" of the target's parent, for the report's header */
static void read_parent(struct sfc_session *s)
{
	char path[64], buf[512], comm[64];
	struct sfc_stat stt;
	const char *q;
	long ppid;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)s->pid);
	ssize_t n = sfc__read_small(path, buf, sizeof(buf));
	if (n <= 0 || sfc_parse_stat(buf, (size_t)n, &stt) ||
	    !(q = strrchr(buf, ')')) || sscanf(q + 1, " %*c %ld", &ppid) != 1)
		return;
	snprintf(path, sizeof(path), "/proc/%ld/comm", ppid);
	if (sfc__read_small(path, comm, sizeof(comm)) <= 0)
		snprintf(comm, sizeof(comm), "???");
	comm[strcspn(comm, "\n")] = 0;
	snprintf(s->parent, sizeof(s->parent), "%s [%ld]", comm, ppid);
}

/* The target's resident memory now and at its peak (VmRSS, VmHWM: the
 * nearest Linux has to macOS's physical footprint), kept from the last
 * read while it lived. */
static void read_footprint(struct sfc_session *s)
{
	char path[64], buf[4096];
	long rss, hwm;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)s->mem);
	if (sfc__read_small(path, buf, sizeof(buf)) <= 0)
		return;
	rss = sfc_status_field(buf, "VmRSS");
	hwm = sfc_status_field(buf, "VmHWM");
	if (rss < 0 || hwm < 0)
		return;
	s->rss = (int64_t)rss * 1024;
	s->rss_peak = (int64_t)hwm * 1024;
}

/* A thread of process pid that is not a zombie, or 0. */
static pid_t live_thread(pid_t pid)
{
	char path[64];
	struct dirent *de;
	struct sfc_session tmp;
	struct sfc_stat stt;
	pid_t found = 0;
	DIR *d;

	memset(&tmp, 0, sizeof(tmp));
	tmp.pid = pid;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (!(d = opendir(path)))
		return 0;
	while (!found && (de = readdir(d))) {
		long tid = strtol(de->d_name, NULL, 10);
		if (tid > 0 && tid != pid && sfc__task_stat(&tmp, (pid_t)tid,
							    &stt))
			found = (pid_t)tid;
	}
	closedir(d);
	return found;
}

/* Open one process's session.  `later`: found during the capture (a
 * child), possibly inside its exec: modules that cannot be read yet are
 * read by the ticks (open_modules), not an error. */
static int open_one(struct sfc_session **out, struct sf_ctx *ctx,
		    const struct sfc_options *o, bool later)
{
	char path[64], buf[4096];
	struct sfc_session *s;
	struct stat sb;
	pid_t mem = o->pid;
	int rc;

	*out = NULL;
	snprintf(path, sizeof(path), "/proc/%d", (int)o->pid);
	if (o->pid <= 0 || stat(path, &sb) < 0)
		return sf_error(ctx, SF_EINPUT, NULL, 0,
				"no such process: %d", (int)o->pid);
	snprintf(path, sizeof(path), "/proc/%d/status", (int)o->pid);
	if (sfc__read_small(path, buf, sizeof(buf)) > 0) {
		long tracer = sfc_status_field(buf, "TracerPid");
		char st[8] = "";
		const char *q = strstr(buf, "State:");
		if (q)
			sscanf(q + 6, " %7s", st);
		/* a main thread that called pthread_exit is a zombie while
		 * the other threads run on */
		if ((st[0] == 'Z' || st[0] == 'X') &&
		    !(mem = live_thread(o->pid)))
			return sf_error(ctx, SF_EINPUT, NULL, 0,
					"process %d has exited (zombie)",
					(int)o->pid);
		if (tracer > 0 && tracer != (long)getpid()) {
			struct sfc_session tmp;
			memset(&tmp, 0, sizeof(tmp));
			tmp.pid = o->pid;
			sfc__explain_eperm(&tmp, ctx, o->pid);
			return SF_EINPUT;
		}
	}
	if (!(s = sf_calloc(1, sizeof(*s))))
		return sf_error_nomem(ctx);
	s->o = *o;
	if (s->o.hz <= 0)
		s->o.hz = 100;
	if (s->o.stack_bytes < 4096)
		s->o.stack_bytes = 4096;
	if (s->o.stack_bytes > 64 * 4096)
		s->o.stack_bytes = 64 * 4096;
	if (!s->o.max_frames)
		s->o.max_frames = 512;
	if (s->o.stop_timeout_ns <= 0)
		s->o.stop_timeout_ns = 20 * 1000000;
	s->pid = o->pid;
	s->mem = mem;
	s->leader_gone = mem != o->pid;
	/* jitmap.c: the user whose files about the target are believed */
	struct stat pst;
	char pp[32];
	snprintf(pp, sizeof(pp), "/proc/%d", (int)s->pid);
	s->uid = stat(pp, &pst) ? (uid_t)-1 : pst.st_uid;
	s->slot = s->o.stack_bytes + SFC_REDZONE;
	s->cmp = sf_calloc(1, s->slot);
	s->hist = sf_calloc(SFC_HIST + 1, sizeof(uint64_t));
	s->recent = sf_calloc(SFC_RECENT, sizeof(uint32_t));
	s->frames = sf_calloc(s->o.max_frames + 1, sizeof(uint64_t));
	/* address 0 and node 0 are reserved ("[truncated]", empty stack) */
	s->addrs = sf_calloc(64, sizeof(*s->addrs));
	s->nodes = sf_calloc(64, sizeof(*s->nodes));
	if (!s->hist || !s->recent || !s->frames || !s->addrs || !s->nodes ||
	    !s->cmp || sfc__kern_open(s) || sfc__py_open(s)) {
		sfc_close(s);
		return sf_error_nomem(ctx);
	}
	s->naddrs = 1;
	s->nnodes = 1;
	s->rss = s->rss_peak = -1;
	read_parent(s);
	s->settling = true;
	s->refresh_tick = UINT32_MAX;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)mem);
	ssize_t n = sfc__read_small(path, s->command, sizeof(s->command));
	for (ssize_t i = 0; i + 1 < n; i++)
		if (!s->command[i])
			s->command[i] = ' ';
	/* SIGCHLD only wakes the dispatcher */
	sigset_t chld;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &s->oldmask);
	exec_changed(s);
	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", (int)o->pid,
		 (int)o->pid);
#if defined(__x86_64__)
	s->reuse = !s->o.no_reuse && !s->o.on_cpu && access(path, R_OK) == 0;
#endif
	s->peek = s->reuse && !s->o.no_peek && !s->o.all_stop;
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	s->ncpus = ncpus > 0 ? (size_t)ncpus : 1;
	s->spin = s->ncpus > 1;
#if defined(__x86_64__)
	s->perf = !s->o.no_perf && !s->o.all_stop &&
		  s->o.unwind == SFC_UNWIND_DWARF;
#endif
	if (s->reuse) {
		/* one schedstat descriptor per thread */
		struct rlimit rl;
		if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
			rl.rlim_cur = rl.rlim_max;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
	}
	/* a command just started may still be inside its exec: wait for
	 * its memory map (see open_modules) before giving up */
	while (o->is_child && !open_modules(s, ctx) && !s->st.target_exited) {
		struct timespec ts = { 0, 2000000 };
		nanosleep(&ts, NULL);
	}
	if (!s->dwfl && !later && (rc = sfc__dwfl_open(s, ctx))) {
		sfc_close(s);
		return rc;
	}
	*out = s;
	return 0;
}

int sfc_open(struct sfc_session **out, struct sf_ctx *ctx,
	     const struct sfc_options *o)
{
	int rc = open_one(out, ctx, o, false);
	struct sfc_session *s = *out;

	if (rc)
		return rc;
	if (!(s->procs = sf_calloc(4, sizeof(*s->procs)))) {
		sfc_close(s);
		*out = NULL;
		return sf_error_nomem(ctx);
	}
	s->capprocs = 4;
	s->procs[s->nprocs++] = s;
	s->head = s;
	return 0;
}

/* Open process pid into the capture of head h (`later`: see open_one). */
static int add_proc(struct sfc_session *h, struct sf_ctx *ctx, pid_t pid,
		    bool later)
{
	struct sfc_options o = h->o;
	struct sfc_session *q;
	int rc;

	o.pid = pid;
	o.is_child = false;
	if (sf_grow(&h->procs, &h->capprocs, h->nprocs + 1,
		    sizeof(*h->procs)))
		return sf_error_nomem(ctx);
	if ((rc = open_one(&q, ctx, &o, later)))
		return rc;
	q->later = later;
	free(q->hist);
	q->hist = h->hist;
	q->shared = true;
	q->head = h;
	q->period = h->period;
	q->start_mono = h->start_mono;
	q->start_real = h->start_real;
	h->procs[h->nprocs++] = q;
	return 0;
}

int sfc_add(struct sfc_session *s, struct sf_ctx *ctx, pid_t pid)
{
	for (size_t i = 0; i < s->nprocs; i++)
		if (s->procs[i]->pid == pid)
			return 0;
	return add_proc(s, ctx, pid, false);
}

/* The children of every thread of the capture's live processes that are
 * not sampled yet join it (children option).  A child that cannot be
 * opened now (it exits, or its exec is under way) is tried again at the
 * next tick. */
static int discover(struct sfc_session *h, struct sf_ctx *ctx)
{
	char path[96], buf[4096];
	size_t n = h->nprocs;

	for (size_t i = 0; i < n; i++) {
		struct sfc_session *q = h->procs[i];
		if (q->done)
			continue;
		for (size_t k = 0; k < q->nthreads; k++) {
			if (q->threads[k].seen != q->tickno)
				continue;
			snprintf(path, sizeof(path),
				 "/proc/%d/task/%d/children", (int)q->pid,
				 (int)q->threads[k].tid);
			if (sfc__read_small(path, buf, sizeof(buf)) <= 0)
				continue;
			for (char *c = buf, *end; *c; c = end) {
				long pid = strtol(c, &end, 10);
				if (end == c)
					break;
				bool known = false;
				for (size_t j = 0; j < h->nprocs && !known; j++)
					known = h->procs[j]->pid == (pid_t)pid;
				for (size_t j = 0; j < h->nskip && !known; j++)
					known = h->skip[j] == (pid_t)pid;
				if (known || pid <= 0)
					continue;
				int rc = add_proc(h, ctx, (pid_t)pid, true);
				if (rc == SF_ENOMEM)
					return rc;
				if (!rc)
					continue;
				/* gone already, or refused (set-uid, traced):
				 * not tried again */
				sf_error_clear(ctx);
				if (sf_grow(&h->skip, &h->capskip, h->nskip + 1,
					    sizeof(*h->skip)))
					return sf_error_nomem(ctx);
				h->skip[h->nskip++] = (pid_t)pid;
			}
		}
	}
	return 0;
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int64_t recent_median(struct sfc_session *s)
{
	int64_t m = 0;

	if (s->nrecent) {
		qsort(s->recent, s->nrecent, sizeof(uint32_t), u32_cmp);
		m = s->recent[s->nrecent / 2];
	}
	s->nrecent = 0;
	return m;
}

static bool suspending(const struct sfc_session *s)
{
	return s->o.suspend && *s->o.suspend && s->o.on_suspend;
}

/* Before the sampler stops (SIGTSTP): no thread may stay held, so wait
 * for the stops still on their way (seized threads cannot be released
 * before they stop: a thread in uninterruptible sleep for over a second
 * stays seized, and stops once it wakes), read and release them (the
 * next tick records them), then let the caller stop us. */
static void suspend(struct sfc_session *s)
{
	int64_t deadline = sfc__mono() + 1000000000;

	for (size_t i = 0; i < s->nprocs; i++)
		while (s->procs[i]->npending &&
		       sfc__dispatch_one(s->procs[i], deadline) > 0)
			;
	s->o.on_suspend(s->o.suspend_arg);
}

/* A process of the capture that exited: its descriptors go (a build
 * starts thousands). */
static void retire(struct sfc_session *q)
{
	for (size_t i = 0; i < q->nthreads; i++) {
		struct sfc_cthread *c = &q->threads[i];
		if (c->fd >= 0)
			close(c->fd);
		c->fd = -1;
		sfc__perf_close(c);
	}
}

/* A thread of some process of the capture is left pending. */
static bool any_pending(const struct sfc_session *s)
{
	for (size_t i = 0; i < s->nprocs; i++)
		if (s->procs[i]->npending)
			return true;
	return false;
}

/* s->gst: the statistics summed over the processes */
static void sum_stats(struct sfc_session *s)
{
	struct sfc_stats *g = &s->gst;

	*g = s->st;
	g->target_exited = true;
	for (size_t i = 0; i < s->nprocs; i++) {
		const struct sfc_stats *q = &s->procs[i]->st;
		g->target_exited &= q->target_exited;
		if (!g->ended[0] && q->ended[0])
			memcpy(g->ended, q->ended, sizeof(g->ended));
		if (!i)
			continue;
		g->samples += q->samples;
		g->reused += q->reused;
		g->reuse_verified += q->reuse_verified;
		g->reuse_mismatch += q->reuse_mismatch;
		g->peeked += q->peeked;
		g->perf_samples += q->perf_samples;
		g->perf_armed += q->perf_armed;
		g->peek_verified += q->peek_verified;
		g->peek_mismatch += q->peek_mismatch;
		g->missed += q->missed;
		g->late += q->late;
		g->catchup += q->catchup;
		g->truncated += q->truncated;
		g->threads_now += s->procs[i]->done ? 0 : q->threads_now;
		g->threads_seen += q->threads_seen;
	}
}

/* After the last tick of process q: skipped ticks no scan came to fill
 * (only the last tick's stops can still pay them), stops still due
 * (consumed and released, bounded), the exit status of our child. */
static int run_end(struct sfc_session *q, struct sf_ctx *ctx)
{
	uint64_t filled = 0;
	int rc = 0;

	for (uint64_t k = 0; k < q->nlate && !rc; k++)
		rc = fill_windows(q, ctx, q->late_first + (int64_t)k * q->period,
				  &filled);
	q->st.missed += q->nlate * q->st.threads_now - filled;
	sched_listed(q, q->nlate);
	q->nlate = 0;
	int64_t deadline = sfc__mono() + 100000000;
	while (q->npending && sfc__dispatch_one(q, deadline) > 0)
		;
	if (!rc)
		rc = record_late(q, ctx);
	if (q->st.target_exited && q->o.is_child && !q->st.child_status_valid) {
		/* the child exited between ticks: collect its status */
		int st;
		pid_t w;
		while ((w = waitpid(q->pid, &st, 0)) < 0 && errno == EINTR)
			;
		if (w == q->pid) {
			q->st.child_status = st;
			q->st.child_status_valid = true;
		}
	}
	return rc;
}

int sfc_run(struct sfc_session *s, struct sf_ctx *ctx, volatile int *stop,
	    void (*progress)(const struct sfc_stats *st, void *arg),
	    void *arg)
{
	int64_t period = (int64_t)(1e9 / s->o.hz);
	struct timespec rt;
	int rc = 0;

	if (period < 1000)
		period = 1000;
	/* setpriority on a thread id applies to that thread (Linux) */
	id_t self = (id_t)gettid();
	errno = 0;
	int nice0 = getpriority(PRIO_PROCESS, self);
	bool boosted = !s->o.no_boost && !errno && nice0 > SFC_BOOST_NICE &&
		       !setpriority(PRIO_PROCESS, self, SFC_BOOST_NICE);
	clock_gettime(CLOCK_REALTIME, &rt);
	s->start_real = (int64_t)rt.tv_sec * 1000000000 + rt.tv_nsec;
	s->start_mono = sfc__mono();
	for (size_t i = 0; i < s->nprocs; i++) {
		s->procs[i]->period = period;
		s->procs[i]->start_real = s->start_real;
		s->procs[i]->start_mono = s->start_mono;
	}
	int64_t next = s->start_mono, last_progress = s->start_mono;
	int64_t end = s->o.duration_ns > 0 ? s->start_mono + s->o.duration_ns
					   : INT64_MAX;
	while (!*stop) {
		if (suspending(s)) {
			suspend(s);
			/* no tick was due while we were stopped */
			next = sfc__mono();
			for (size_t i = 0; i < s->nprocs; i++)
				s->procs[i]->nlate = 0;
			continue;
		}
		/* every process's tick; one that exited (or met another
		 * tracer) is ticked no more */
		bool live = false, ended = false;
		for (size_t i = 0; i < s->nprocs && !rc; i++) {
			struct sfc_session *q = s->procs[i];
			if (q->done)
				continue;
			q->sched = next;
			rc = tick(q, ctx);
			q->st.ticks++;
			/* the memory figures of the report's header */
			if (q == s && (q->st.ticks & 63) == 1 &&
			    !q->st.target_exited)
				read_footprint(q);
			q->done = q->st.target_exited || q->st.ended[0] ||
				  q->refused;
			if (q->done && q != s)
				retire(q);
			ended |= q->st.ended[0] != 0;
			live |= !q->done;
		}
		if (!rc && !ended && s->o.children) {
			size_t n0 = s->nprocs;
			rc = discover(s, ctx);
			live |= s->nprocs > n0;
		}
		/* a command we started ends the capture when it exits, as
		 * perf record's does, whatever it left running */
		if (rc || ended || !live || (s->o.is_child && s->done))
			break;
		int64_t now = sfc__mono();
		next += period;
		/* a tick more than one period late is skipped, not run in a
		 * burst: the next scan fills its samples for the threads that
		 * did not run meanwhile and counts the others' as missed */
		while (now - next >= period && next < end) {
			for (size_t i = 0; i < s->nprocs; i++) {
				struct sfc_session *q = s->procs[i];
				if (q->done)
					continue;
				if (!q->nlate)
					q->late_first = next;
				q->nlate++;
				q->st.ticks_late++;
			}
			next += period;
		}
		if (next >= end)
			break;
		s->st.elapsed_ns = now - s->start_mono;
		if (progress && now - last_progress >= 200000000) {
			s->st.stop_ns_last = recent_median(s);
			sum_stats(s);
			progress(sfc_stats(s), arg);
			last_progress = now;
		}
		/* a thread left pending stays stopped until its stop is read:
		 * wait for those stops rather than sleep past them */
		while (!*stop && !suspending(s) && any_pending(s) &&
		       sfc__dispatch_one(s, next) > 0)
			;
		struct timespec ts = { next / 1000000000, next % 1000000000 };
		while (!*stop && !suspending(s) &&
		       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
				       NULL) == EINTR)
			;
	}
	s->st.elapsed_ns = sfc__mono() - s->start_mono;
	if (boosted)
		setpriority(PRIO_PROCESS, self, nice0);
	if (!s->st.target_exited)
		read_footprint(s);
	for (size_t i = 0; i < s->nprocs; i++) {
		int r = run_end(s->procs[i], ctx);
		if (!rc)
			rc = r;
		s->procs[i]->st.elapsed_ns = s->st.elapsed_ns;
	}
	sum_stats(s);
	return rc;
}

const struct sfc_stats *sfc_stats(const struct sfc_session *s)
{
	return s->nprocs > 1 ? &s->gst : &s->st;
}

void sfc_stop_time(const struct sfc_session *s, int64_t *median,
		   int64_t *p99)
{
	uint64_t total = 0, acc = 0;
	bool have_med = false;

	*median = *p99 = 0;
	for (size_t i = 0; i <= SFC_HIST; i++)
		total += s->hist[i];
	if (!total)
		return;
	for (size_t i = 0; i <= SFC_HIST; i++) {
		acc += s->hist[i];
		if (!have_med && acc * 2 >= total) {
			*median = (int64_t)i * 1000;
			have_med = true;
		}
		if (acc * 100 >= total * 99) {
			*p99 = (int64_t)i * 1000;
			return;
		}
	}
}

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
		if ((rc = sfc__push_addr(s, ctx, p, fid, s->nodes[i].addr,
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
		if (x->py && (rc = sfc__py_emit(s, ctx, p, x->py, x->stack,
						fid, &st)))
			goto out;
		if (x->kern) {
			/* kernel.c: its frames above the leaf, its labels */
			struct sf_label kl[8] = {
				{ "state", sfc_state_name(states[li]) },
				{ hows[how][0], hows[how][1] },
			};
			size_t nk = 1 + !!how;
			if ((rc = sfc__kern_emit(s, ctx, p, x->kern, &st, kl,
						 &nk)) ||
			    (rc = sf_profile_labels(p, ctx, kl, nk, &li2)))
				goto out;
		}
		if ((rc = sf_profile_add_sample(p, ctx, st, tix[x->thread], li2,
						x->time, &w)))
			goto out;
	}
	/* python.c: how many samples had Python frames */
	rc = sfc__py_report(s, ctx, p);
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
	return 0;
}

void sfc_close(struct sfc_session *s)
{
	if (!s)
		return;
	/* the other processes first: the head's signal mask is the
	 * caller's */
	if (s->head == s)
		for (size_t i = s->nprocs; i-- > 1;)
			sfc_close(s->procs[i]);
	free(s->procs);
	free(s->skip);
	int64_t deadline = sfc__mono() + 100000000;
	while (s->npending && sfc__dispatch_one(s, deadline) > 0)
		;
	if (s->dwfl)
		dwfl_end(s->dwfl);
	for (size_t i = 0; i < s->nold; i++)
		dwfl_end(s->old[i]);
	free(s->old);
	sigprocmask(SIG_SETMASK, &s->oldmask, NULL);
	for (size_t i = 0; i < s->nthreads; i++) {
		if (s->threads[i].fd >= 0)
			close(s->threads[i].fd);
		sfc__perf_close(&s->threads[i]);
		free(s->threads[i].copy);
	}
	sf_idx_free(&s->thread_idx);
	sf_idx_free(&s->addr_idx);
	sf_idx_free(&s->node_idx);
	free(s->threads);
	free(s->addrs);
	free(s->nodes);
	free(s->samples);
	free(s->cur);
	free(s->reu);
	free(s->wins);
	free(s->stacks);
	free(s->pending);
	for (size_t i = 0; i < s->nlateq; i++)
		free(s->late[i].stack);
	free(s->late);
	free(s->owed);
	if (!s->shared)
		free(s->hist);
	free(s->recent);
	free(s->frames);
	free(s->cmp);
	sfc__kern_close(s);
	sfc__py_close(s);
	free(s->inl);
	free(s->inl_ids);
	free(s);
}
