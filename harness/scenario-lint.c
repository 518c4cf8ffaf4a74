// SPDX-License-Identifier: GPL-2.0
/*
 * scenario-lint - parse scenario files on the host with the runner's own
 * parser (testcases/runner/scenario/scenario_parse.c), so a malformed file fails
 * before anything boots.
 * usage: scenario-lint DIR|FILE...   prints "N scenarios, M rows" or the
 * first error as FILE:LINE: REASON, and exits 1 on an error.
 */
#include <stdio.h>
#include <sys/stat.h>

#include "scenario.h"

int main(int argc, char **argv)
{
	struct scn_set set = { 0 };
	size_t rows = 0;
	char err[512];

	if (argc < 2) {
		fprintf(stderr, "usage: %s DIR|FILE...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		struct stat st;
		int r;

		if (stat(argv[i], &st)) {
			perror(argv[i]);
			return 1;
		}
		r = S_ISDIR(st.st_mode) ? scn_parse_dir(&set, argv[i], err, sizeof(err)) :
					  scn_parse_file(&set, argv[i], err, sizeof(err));
		if (r) {
			fprintf(stderr, "%s\n", err);
			scn_set_free(&set);
			return 1;
		}
	}
	for (size_t i = 0; i < set.n; i++) {
		unsigned int v[4];

		rows += scn_variant_list(&set.v[i], v, 4);
	}
	printf("%zu scenarios, %zu rows\n", set.n, rows);
	scn_set_free(&set);
	return 0;
}
