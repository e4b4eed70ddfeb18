/* sfanalyze - reports from sampled call stacks (call tree, flat table,
 * call graph).  The analyses arrive with issue #4; until then this
 * program only describes itself. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	cli_prog = "sfanalyze";
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("Usage: sfanalyze [--tree|--flat|--callgraph] [INPUT...]\n"
		       "The reports are being built (issue #4); this build "
		       "has none yet.\n");
		return EXIT_OK;
	}
	cli_msg("no reports in this build yet (issue #4)");
	return EXIT_USAGE;
}
