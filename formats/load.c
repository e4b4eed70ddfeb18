/* load.c - the load stage (load.h): open, detect, read (whole or in
 * parts: parallel.c), merge. */
#include "load.h"
#include "filter.h"

#include <stdio.h>

static const struct sf_load_options no_options;

int sf_read(struct sf_profile *p, const struct sf_format *fmt,
	    struct sf_input *in, struct sf_ctx *ctx)
{
	int rc;

	if (!fmt && (rc = sf_format_detect(&fmt, in, ctx, sf_input_name(in))))
		return rc;
	if (!fmt->read)
		return sf_error(ctx, SF_EUSAGE, sf_input_name(in), 0,
				"format '%s' cannot be read", fmt->name);
	if (!p->d.meta.source_format)
		p->d.meta.source_format = sf_profile_str(p, ctx, fmt->name);
	if (fmt->split && (rc = sf_read_parallel(p, fmt, in, ctx)) != 1)
		return rc;
	return fmt->read(p, in, ctx);
}

static int new_profile(struct sf_profile **out, struct sf_ctx *ctx,
		       const struct sf_load_options *opt)
{
	int rc;

	if ((rc = sf_profile_new(out, ctx)))
		return rc;
	sf_profile_set_aggregate(*out, opt->aggregate);
	sf_profile_set_fold_exact(*out, opt->fold_exact);
	sf_profile_set_drop_zero(*out, opt->drop_zero);
	return 0;
}

/* Read input number `index` into p. */
static int load_one(struct sf_profile *p, struct sf_ctx *ctx,
		    struct sf_input *in, uint32_t index,
		    const struct sf_load_options *opt)
{
	int rc;

	sf_profile_begin_input(p, index);
	rc = sf_read(p, opt->from, in, ctx);  /* detects when from is NULL */
	if (rc && !ctx->err.source[0])
		snprintf(ctx->err.source, sizeof(ctx->err.source), "%s",
			 sf_input_name(in));
	return rc;
}

/* After the last input: apply the selection, hand over or free. */
static int finish(struct sf_profile **out, struct sf_profile *p, int rc,
		  struct sf_ctx *ctx, const struct sf_load_options *opt)
{
	if (!rc && opt->select)
		rc = sf_profile_select(p, opt->select, ctx);
	if (rc) {
		sf_profile_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

int sf_load(struct sf_profile **out, struct sf_ctx *ctx,
	    char *const *paths, size_t n, const struct sf_load_options *opt)
{
	static char *const stdin_only[] = { "-" };
	struct sf_profile *p;
	int rc = 0;

	if (!opt)
		opt = &no_options;
	if (n == 0) {
		paths = stdin_only;
		n = 1;
	}
	if ((rc = new_profile(&p, ctx, opt)))
		return rc;
	for (size_t i = 0; i < n && !rc; i++) {
		struct sf_input *in;
		if ((rc = sf_input_open(&in, ctx, paths[i])))
			break;
		rc = load_one(p, ctx, in, (uint32_t)i, opt);
		sf_input_close(in);
	}
	return finish(out, p, rc, ctx, opt);
}

int sf_load_inputs(struct sf_profile **out, struct sf_ctx *ctx,
		   struct sf_input *const *inputs, size_t n,
		   const struct sf_load_options *opt)
{
	struct sf_profile *p;
	int rc = 0;

	if (!opt)
		opt = &no_options;
	if ((rc = new_profile(&p, ctx, opt)))
		return rc;
	for (size_t i = 0; i < n && !rc; i++)
		rc = load_one(p, ctx, inputs[i], (uint32_t)i, opt);
	return finish(out, p, rc, ctx, opt);
}
