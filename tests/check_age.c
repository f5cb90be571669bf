/*
 * check_age.c: age's keys and files (base/agekey.c, base/age.c): a key pair age-keygen made, its public key derived
 * from its secret one; malformed keys refused; files written to two recipients read back whole by either identity,
 * at every chunk boundary; a wrong identity, a changed byte, a cut file or one with more after its last chunk
 * refused. age(1) reading them, and what it writes read here, is tests/e2e/t-encrypt.sh.
 */
#include <sodium.h>
#include <sys/mman.h>

#include "base.h"
#include "unit.h"

/* Made by age-keygen 1.1.1. */
static const char *const PUBLIC = "age1rvdvyrzzwg29kfvu9eaz7gk8ldflj00pmcq8f4npvnjpu2vjuatspqctn4";
static const char *const SECRET = "AGE-SECRET-KEY-1H89HK47TERVRZFPDEYA6T7JVP8PTQM842QGMD8K3GCSL9XLG9LPSALXXGU";

START_TEST(test_keys)
{
	unsigned char pub[AGE_KEY_BYTES], sec[AGE_KEY_BYTES], derived[AGE_KEY_BYTES];
	char bad[128];

	ck_assert_int_eq(age_recipient_parse(PUBLIC, pub), 0);
	ck_assert_int_eq(age_identity_parse(SECRET, sec), 0);
	ck_assert_int_eq(crypto_scalarmult_base(derived, sec), 0);
	ck_assert_mem_eq(pub, derived, AGE_KEY_BYTES);
	/* The other kind, another case, a changed character, one less, one more. */
	ck_assert_int_eq(age_recipient_parse(SECRET, pub), -EINVAL);
	ck_assert_int_eq(age_identity_parse(PUBLIC, sec), -EINVAL);
	snprintf(bad, sizeof(bad), "%s", PUBLIC);
	bad[0] = 'A';
	ck_assert_int_eq(age_recipient_parse(bad, pub), -EINVAL);
	snprintf(bad, sizeof(bad), "%s", PUBLIC);
	bad[20] = bad[20] == 'q' ? 'p' : 'q';
	ck_assert_int_eq(age_recipient_parse(bad, pub), -EINVAL);
	snprintf(bad, sizeof(bad), "%.*s", (int)strlen(PUBLIC) - 1, PUBLIC);
	ck_assert_int_eq(age_recipient_parse(bad, pub), -EINVAL);
	snprintf(bad, sizeof(bad), "%sq", PUBLIC);
	ck_assert_int_eq(age_recipient_parse(bad, pub), -EINVAL);
	ck_assert_int_eq(age_recipient_parse("", pub), -EINVAL);
	ck_assert_int_eq(age_recipient_parse("age1", pub), -EINVAL);
}
END_TEST

/* Identity files add up (as age's -i given twice), 16 in all; a text with none is no identity file. */
START_TEST(test_identity_files)
{
	struct age_identities ids = { .n = 0 };
	char text[4096];
	size_t at = 0;

	snprintf(text, sizeof(text), "# created: now\n%s\r\n\n", SECRET);
	ck_assert_int_eq(age_identities_parse(text, &ids), 0);
	ck_assert_uint_eq(ids.n, 1);
	ck_assert_int_eq(age_identities_parse(text, &ids), 0);
	ck_assert_uint_eq(ids.n, 2);
	ck_assert_mem_eq(ids.keys[0], ids.keys[1], AGE_KEY_BYTES);
	ck_assert_int_eq(age_identities_parse("# only a comment\n\n", &ids), -EINVAL);
	ck_assert_int_eq(age_identities_parse(PUBLIC, &ids), -EINVAL);
	for (int i = 0; i < 14; i++)
		at += (size_t)snprintf(text + at, sizeof(text) - at, "%s\n", SECRET);
	ck_assert_uint_eq(ids.n, 2);
	ck_assert_int_eq(age_identities_parse(text, &ids), 0);
	ck_assert_uint_eq(ids.n, AGE_IDENTITIES_MAX);
	ck_assert_int_eq(age_identities_parse(SECRET, &ids), -E2BIG);
}
END_TEST

static int emit_fd(void *ctx, const char *buf, size_t n)
{
	return io_write_full(*(int *)ctx, buf, n);
}

/* A file of size bytes (a pattern) encrypted to recipients: its fd, at its start. */
static int encrypted(const unsigned char (*recipients)[AGE_KEY_BYTES], size_t n, size_t size)
{
	struct age_writer a;
	int fd = memfd_create("age", MFD_CLOEXEC);
	unsigned char buf[7000];

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(age_begin(&a, recipients, n, emit_fd, &fd), 0);
	for (size_t at = 0; at < size;) {
		size_t take = size - at < sizeof(buf) ? size - at : sizeof(buf);

		for (size_t i = 0; i < take; i++)
			buf[i] = (unsigned char)((at + i) * 7 + 3);
		ck_assert_int_eq(age_write(&a, buf, take), 0);
		at += take;
	}
	ck_assert_int_eq(age_end(&a), 0);
	ck_assert_uint_eq(a.written, (uint64_t)lseek(fd, 0, SEEK_CUR));
	age_writer_free(&a);
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	return fd;
}

/* Reads fd with identity: the plaintext's size, or -errno; every byte checked against the pattern. */
static ssize_t decrypted(int fd, const unsigned char identity[AGE_KEY_BYTES])
{
	static unsigned char out[AGE_CHUNK];
	struct age_reader a;
	ssize_t n, total = 0;
	int r = age_open(&a, fd, identity);

	if (r < 0)
		return r;
	while ((n = age_read(&a, out)) > 0) {
		ssize_t bad = -1;

		/* One assertion a chunk: Check marks each one it passes, which a byte at a time would make slow. */
		for (ssize_t i = 0; i < n && bad < 0; i++)
			if (out[i] != (unsigned char)((total + i) * 7 + 3))
				bad = i;
		ck_assert_int_eq(bad, -1);
		total += n;
	}
	age_reader_free(&a);
	return n < 0 ? n : total;
}

/* _i: the size, around the chunk boundaries. */
static const size_t sizes[] = { 0, 1, AGE_CHUNK - 1, AGE_CHUNK, AGE_CHUNK + 1, 2 * AGE_CHUNK + 7 };

START_TEST(test_round_trip)
{
	unsigned char sec[2][AGE_KEY_BYTES], pub[2][AGE_KEY_BYTES];
	int fd;

	ck_assert_int_ge(sodium_init(), 0);
	for (int i = 0; i < 2; i++) {
		randombytes_buf(sec[i], AGE_KEY_BYTES);
		ck_assert_int_eq(crypto_scalarmult_base(pub[i], sec[i]), 0);
	}
	fd = encrypted((const unsigned char (*)[AGE_KEY_BYTES])pub, 2, sizes[_i]);
	ck_assert_int_eq(decrypted(fd, sec[0]), (ssize_t)sizes[_i]);
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	ck_assert_int_eq(decrypted(fd, sec[1]), (ssize_t)sizes[_i]);
	close(fd);
}
END_TEST

/* A wrong identity, a changed header or payload byte, a cut file, bytes after the last chunk: each refused. */
START_TEST(test_refused)
{
	unsigned char sec[AGE_KEY_BYTES], pub[1][AGE_KEY_BYTES], other[AGE_KEY_BYTES], b;
	off_t end;
	int fd;

	ck_assert_int_ge(sodium_init(), 0);
	randombytes_buf(sec, sizeof(sec));
	randombytes_buf(other, sizeof(other));
	ck_assert_int_eq(crypto_scalarmult_base(pub[0], sec), 0);
	fd = encrypted((const unsigned char (*)[AGE_KEY_BYTES])pub, 1, 2 * AGE_CHUNK);
	ck_assert_int_eq(decrypted(fd, other), -ENOKEY);
	end = lseek(fd, 0, SEEK_END);
	/* The intro's "v1", then a byte of the second chunk. */
	for (off_t at = 20; at > 0; at = 0) {
		ck_assert_int_eq(pread(fd, &b, 1, at), 1);
		b ^= 1;
		ck_assert_int_eq(pwrite(fd, &b, 1, at), 1);
		ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
		ck_assert_int_eq(decrypted(fd, sec), -EBADMSG);
		b ^= 1;
		ck_assert_int_eq(pwrite(fd, &b, 1, at), 1);
	}
	ck_assert_int_eq(pread(fd, &b, 1, end - AGE_CHUNK - 100), 1);
	b ^= 0x80;
	ck_assert_int_eq(pwrite(fd, &b, 1, end - AGE_CHUNK - 100), 1);
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	ck_assert_int_eq(decrypted(fd, sec), -EBADMSG);
	b ^= 0x80;
	ck_assert_int_eq(pwrite(fd, &b, 1, end - AGE_CHUNK - 100), 1);
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	ck_assert_int_eq(decrypted(fd, sec), 2 * AGE_CHUNK);
	/* More after the last chunk, then the last chunk cut away: the full chunk before it is not the last. */
	ck_assert_int_eq(pwrite(fd, "x", 1, end), 1);
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	ck_assert_int_eq(decrypted(fd, sec), -EBADMSG);
	ck_assert_int_eq(ftruncate(fd, end - AGE_CHUNK - AGE_TAG), 0);
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	ck_assert_int_eq(decrypted(fd, sec), -EBADMSG);
	close(fd);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("age");
	TCase *tc = tcase_create("age");

	tcase_add_test(tc, test_keys);
	tcase_add_test(tc, test_identity_files);
	tcase_add_loop_test(tc, test_round_trip, 0, (int)(sizeof(sizes) / sizeof(sizes[0])));
	tcase_add_test(tc, test_refused);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(suite)
