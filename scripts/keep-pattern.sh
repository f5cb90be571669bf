# keep-pattern.sh: sourced by the developer scripts that point kernel.core_pattern at a build. keep_pattern SCRATCH
# saves kernel.core_pattern and kernel.core_pipe_limit and, at exit (on failure too), writes them back and removes
# the scratch directory SCRATCH.
keep_pattern() {
	_kept_scratch=$1
	_kept_pattern=$(cat /proc/sys/kernel/core_pattern)
	_kept_limit=$(cat /proc/sys/kernel/core_pipe_limit)
	trap 'printf "%s\n" "$_kept_pattern" > /proc/sys/kernel/core_pattern; echo "$_kept_limit" > /proc/sys/kernel/core_pipe_limit; rm -rf "$_kept_scratch"' EXIT
}
