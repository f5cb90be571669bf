/* outcome.c: the names of a crash's results, as its entry gives them (CORESINK_RESULT=). */
#include "base.h"
#include "outcome.h"

static const char *const result_names[] = {
	[RESULT_STORED] = "stored", [RESULT_TRUNCATED] = "truncated", [RESULT_DISCARDED] = "discarded",
	[RESULT_SUPPRESSED] = "suppressed", [RESULT_SKIPPED] = "skipped", [RESULT_FAILED] = "failed",
	[RESULT_RECORDED] = "recorded",
};

DEFINE_STRING_TABLE_LOOKUP(result, enum result, result_names, _RESULT_MAX)
