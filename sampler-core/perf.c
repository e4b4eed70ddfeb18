/*
 * perf.c - sampling a running thread without stopping it (x86_64): a
 * per-thread task-clock perf event, armed for one overflow at a tick
 * (PERF_EVENT_IOC_REFRESH 1), makes the kernel copy the thread's user
 * registers and the top of its stack from its timer interrupt, 10 us of
 * the thread's own CPU time after the tick.  The thread is not
 * descheduled, only interrupted, and the sample is a real moment of it.
 * Where perf_event_open is refused (perf_event_paranoid, seccomp, no
 * CONFIG_PERF_EVENTS) sfc__perf_arm records why, sfc__perf_refused says
 * so once and the session stops threads as before.
 */
#include "capture_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <linux/perf_event.h>
#include <asm/perf_regs.h>

/* x86_64 user registers perf can give (DS, ES, FS, GS it refuses) */
#define SFC_PERF_REGS \
	((((uint64_t)1 << (PERF_REG_X86_SS + 1)) - 1) | \
	 ((((uint64_t)1 << (PERF_REG_X86_R15 + 1)) - 1) & \
	  ~(((uint64_t)1 << PERF_REG_X86_R8) - 1)))
#define SFC_PERF_NREGS 20
/* ring buffer: one metadata page and 2^4 data pages (64 KiB: one sample
 * of at most SFC_PERF_STACK bytes of stack, and room to spare) */
#define SFC_PERF_PAGES 16
#define SFC_PERF_STACK 32768

static long perf_open(struct perf_event_attr *a, pid_t tid)
{
	return syscall(SYS_perf_event_open, a, tid, -1, -1,
		       PERF_FLAG_FD_CLOEXEC);
}

/* Open and map tid's event.  0, or -1 (errno) when perf cannot be used. */
static int perf_new(struct sfc_session *s, struct sfc_cthread *c)
{
	struct perf_event_attr a;
	long pg = sysconf(_SC_PAGESIZE);

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = 10000;        /* ns of the thread's CPU time */
	a.sample_type = PERF_SAMPLE_TIME | PERF_SAMPLE_REGS_USER |
			PERF_SAMPLE_STACK_USER;
	a.sample_regs_user = SFC_PERF_REGS;
	a.sample_stack_user = s->o.stack_bytes < SFC_PERF_STACK ?
			      (uint32_t)(s->o.stack_bytes & ~(size_t)7) :
			      SFC_PERF_STACK;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;    /* the clock of sfc__mono */
	long fd = perf_open(&a, c->tid);
	if (fd < 0)
		return -1;
	size_t len = (size_t)pg * (SFC_PERF_PAGES + 1);
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, (int)fd,
		       0);
	if (m == MAP_FAILED) {
		int e = errno;
		close((int)fd);
		errno = e;
		return -1;
	}
	c->pfd = (int)fd;
	c->pmap = m;
	c->pmap_len = len;
	return 0;
}

void sfc__perf_close(struct sfc_cthread *c)
{
	if (c->pmap)
		munmap(c->pmap, c->pmap_len);
	if (c->pfd >= 0)
		close(c->pfd);
	c->pmap = NULL;
	c->pfd = -1;
}

/* Everything in the ring is old: consume it. */
static void perf_drain(struct sfc_cthread *c)
{
	struct perf_event_mmap_page *mp = c->pmap;
	uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);

	__atomic_store_n(&mp->data_tail, head, __ATOMIC_RELEASE);
}

bool sfc__perf_arm(struct sfc_session *s, struct sfc_cthread *c)
{
	if (!c->pmap && perf_new(s, c) < 0) {
		/* refused for every thread alike (paranoid level, seccomp,
		 * no perf events): stop using it */
		if (errno == EACCES || errno == EPERM || errno == ENOSYS ||
		    errno == ENOENT || errno == EOPNOTSUPP || errno == EINVAL) {
			s->perf = false;
			s->perf_errno = errno;
		}
		return false;
	}
	perf_drain(c);
	return ioctl(c->pfd, PERF_EVENT_IOC_REFRESH, 1) == 0;
}

void sfc__perf_cancel(struct sfc_cthread *c)
{
	if (!c->pmap)
		return;
	ioctl(c->pfd, PERF_EVENT_IOC_DISABLE, 0);
	perf_drain(c);
}

/* Copy n bytes at ring offset off (wrapping) into out. */
static void ring_copy(const unsigned char *data, uint64_t size, uint64_t off,
		      void *out, size_t n)
{
	uint64_t at = off % size;
	size_t first = n < size - at ? n : (size_t)(size - at);

	memcpy(out, data + at, first);
	memcpy((unsigned char *)out + first, data, n - first);
}

int sfc__perf_take(struct sfc_session *s, struct sfc_cthread *c,
		   struct sfc_thr *t, unsigned char *stack)
{
	struct perf_event_mmap_page *mp = c->pmap;
	const unsigned char *data = (const unsigned char *)c->pmap +
				    mp->data_offset;
	uint64_t size = mp->data_size;
	uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = mp->data_tail;
	int got = 0;

	while (tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header h;
		ring_copy(data, size, tail, &h, sizeof(h));
		if (h.size < sizeof(h) || tail + h.size > head)
			break;
		if (h.type == PERF_RECORD_SAMPLE) {
			/* time, abi, regs, stack size, stack, dyn size */
			uint64_t off = tail + sizeof(h), v[SFC_PERF_NREGS];
			uint64_t time, abi, ssz, dyn = 0;
			ring_copy(data, size, off, &time, 8);
			ring_copy(data, size, off + 8, &abi, 8);
			off += 16;
			if (abi == PERF_SAMPLE_REGS_ABI_64) {
				ring_copy(data, size, off, v, sizeof(v));
				off += sizeof(v);
			}
			ring_copy(data, size, off, &ssz, 8);
			off += 8;
			if (ssz)
				ring_copy(data, size, off + ssz, &dyn, 8);
			if (dyn > ssz)
				dyn = ssz;
			if (abi == PERF_SAMPLE_REGS_ABI_64 && dyn &&
			    dyn <= s->slot) {
				/* the order of asm/perf_regs.h, DS..GS left
				 * out: AX BX CX DX SI DI BP SP IP FLAGS CS SS
				 * R8..R15 */
				sfc_regs *r = &t->regs;
				memset(r, 0, sizeof(*r));
				r->rax = v[0];
				r->rbx = v[1];
				r->rcx = v[2];
				r->rdx = v[3];
				r->rsi = v[4];
				r->rdi = v[5];
				r->rbp = v[6];
				r->rsp = v[7];
				r->rip = v[8];
				r->eflags = v[9];
				r->cs = v[10];
				r->ss = v[11];
				r->r8 = v[12];
				r->r9 = v[13];
				r->r10 = v[14];
				r->r11 = v[15];
				r->r12 = v[16];
				r->r13 = v[17];
				r->r14 = v[18];
				r->r15 = v[19];
				r->orig_rax = (unsigned long long)-1;
				ring_copy(data, size, off, stack, (size_t)dyn);
				t->stack_base = r->rsp;
				t->stack_len = (size_t)dyn;
				t->short_copy = false;
				t->t_int = (int64_t)time;
				t->map_seq = s->map_seq;
				got = 1;
			}
		}
		tail += h.size;
	}
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
	return got;
}
#else
void sfc__perf_close(struct sfc_cthread *c)
{
	c->pfd = -1;
	c->pmap = NULL;
}

bool sfc__perf_arm(struct sfc_session *s, struct sfc_cthread *c)
{
	s->perf = false;
	return false;
}

void sfc__perf_cancel(struct sfc_cthread *c)
{
}

int sfc__perf_take(struct sfc_session *s, struct sfc_cthread *c,
		   struct sfc_thr *t, unsigned char *stack)
{
	return 0;
}
#endif

/* Say once, for the whole capture, that perf_event_open was refused and
 * threads are stopped instead: the paranoid level and its fix when the
 * kernel refused permission. */
void sfc__perf_refused(struct sfc_session *s, struct sf_ctx *ctx)
{
	struct sfc_session *h = s->head ? s->head : s;
	char lvl[16] = "?";
	FILE *f;

	if (!s->perf_errno || h->perf_warned)
		return;
	h->perf_warned = true;
	if ((f = fopen("/proc/sys/kernel/perf_event_paranoid", "re"))) {
		if (!fgets(lvl, sizeof(lvl), f))
			strcpy(lvl, "?");
		lvl[strcspn(lvl, "\n")] = 0;
		fclose(f);
	}
	if (s->perf_errno != EACCES && s->perf_errno != EPERM)
		sf_warn(ctx, "capture.perf_refused",
			"perf_event_open refused (%s): running threads are "
			"stopped with ptrace instead (no perf events in this "
			"kernel?)", strerror(s->perf_errno));
	else if (atoi(lvl) > 2)
		sf_warn(ctx, "capture.perf_refused",
			"perf_event_open refused (%s): running threads are "
			"stopped with ptrace instead; kernel.perf_event_paranoid"
			" is %s: 'sysctl kernel.perf_event_paranoid=2' (or "
			"CAP_PERFMON) lets sfcapture sample them without a stop",
			strerror(s->perf_errno), lvl);
	else
		sf_warn(ctx, "capture.perf_refused",
			"perf_event_open refused (%s) although "
			"kernel.perf_event_paranoid is %s: seccomp or a "
			"security module forbids it; running threads are "
			"stopped with ptrace instead", strerror(s->perf_errno),
			lvl);
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
int sfc__perf_all(struct sfc_session *s, struct sf_ctx *ctx)
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
			bool complete = sfc__src_unwind(s, t, stack, true);
			t->strict = false;
			t->have = false;
			if (complete) {
				if ((rc = sfc__intern(s, ctx, true, &node,
						      &known)))
					return rc;
				if (known) {
					sfc__stack_end(s, c, true);
					t->win = false;
					if ((rc = sfc__settle(s, ctx, t, stack,
							      node, true, true,
							      SFC_PERF)))
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
