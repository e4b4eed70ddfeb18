/* sfcapture - sample every thread of a live process.  The capture engine
 * arrives with issue #5; until then this program only describes itself. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	cli_prog = "sfcapture";
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("Usage: sfcapture -p PID | -- CMD [ARGS...]\n"
		       "The capture engine is being built (issue #5); this "
		       "build cannot capture yet.\n");
		return EXIT_OK;
	}
	cli_msg("no capture engine in this build yet (issue #5)");
	return EXIT_USAGE;
}
