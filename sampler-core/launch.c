/* launch.c - start the command sfcapture samples (sfcapture -- CMD) and
 * end it when the capture is over. */
#include "capture.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int sfc_launch(pid_t *out, struct sf_ctx *ctx, char *const *argv)
{
	int pfd[2], err = 0;
	pid_t pid;
	ssize_t n;

	if (pipe2(pfd, O_CLOEXEC) < 0)
		return sf_error(ctx, SF_EINPUT, NULL, 0,
				"cannot create a pipe: %s", strerror(errno));
	/* the child must not write our buffered output a second time */
	fflush(NULL);
	if ((pid = fork()) < 0) {
		err = errno;
		close(pfd[0]);
		close(pfd[1]);
		return sf_error(ctx, SF_EINPUT, NULL, 0, "cannot fork: %s",
				strerror(err));
	}
	if (pid == 0) {
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		close(pfd[0]);
		execvp(argv[0], argv);
		/* the exec failed: tell the parent why through the pipe (a
		 * successful exec closes it, and the parent reads nothing) */
		err = errno;
		if (write(pfd[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	close(pfd[1]);
	while ((n = read(pfd[0], &err, sizeof(err))) < 0 && errno == EINTR)
		;
	close(pfd[0]);
	if (n == (ssize_t)sizeof(err)) {
		waitpid(pid, NULL, 0);
		return sf_error(ctx, SF_EINPUT, NULL, 0, "cannot run '%s': %s",
				argv[0], strerror(err));
	}
	*out = pid;
	return 0;
}

int sfc_end_child(pid_t pid, int *status)
{
	pid_t w;

	/* it may have ended by itself since the last look */
	if ((w = waitpid(pid, status, WNOHANG)) == pid)
		return 0;
	if (w < 0)
		return -1;
	kill(pid, SIGTERM);
	for (int i = 0; i < 200; i++) {
		w = waitpid(pid, status, WNOHANG);
		if (w == pid)
			return 1;
		if (w < 0 && errno != EINTR)
			return -1;
		struct timespec ts = { 0, 10000000 };
		nanosleep(&ts, NULL);
	}
	kill(pid, SIGKILL);
	while ((w = waitpid(pid, status, 0)) < 0 && errno == EINTR)
		;
	return w == pid ? 1 : -1;
}
