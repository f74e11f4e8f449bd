// SPDX-License-Identifier: MIT
/*
 * rc_if_nametoindex / rc_if_indextoname against glibc's if_nametoindex / if_indextoname on the
 * loopback (ifindex 1 in every network namespace), and their refusals.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "common/netif.h"

static void test_loopback(void **state)
{
	char name[IF_NAMESIZE], theirs[IF_NAMESIZE];

	(void)state;
	assert_int_equal(rc_if_nametoindex("lo"), if_nametoindex("lo"));
	assert_int_equal(rc_if_nametoindex("lo"), 1);
	assert_non_null(rc_if_indextoname(1, name));
	assert_non_null(if_indextoname(1, theirs));
	assert_string_equal(name, theirs);
	/* the second call, on the kept socket, answers the same */
	assert_int_equal(rc_if_nametoindex("lo"), 1);
}

static void test_refusals(void **state)
{
	char name[IF_NAMESIZE];

	(void)state;
	errno = 0;
	assert_int_equal(rc_if_nametoindex("rcnone0"), 0);
	assert_int_equal(errno, ENODEV);
	errno = 0;
	assert_int_equal(rc_if_nametoindex("a-name-longer-than-ifnamsiz"), 0);
	assert_int_equal(errno, ENODEV);
	errno = 0;
	assert_null(rc_if_indextoname(0x7ffffff0u, name));
	assert_int_equal(errno, ENXIO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_loopback),
	    cmocka_unit_test(test_refusals),
	};

	rc_netif_warm();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
