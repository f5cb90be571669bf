// bugs.cc: an exception nobody catches (std::terminate, then abort), for t-signature.
#include <stdexcept>

static void __attribute__((noinline)) do_work(int n)
{
	if (n < 2)
		throw std::runtime_error("nobody catches this");
}

int main(int argc, char **)
{
	do_work(argc);
	return 0;
}
