#!/bin/bash
# Containers named as their runtimes name them, on real crashes: a pod from podman kube play (runc, cgroupfs), a
# docker container with the labels a kubelet's cri-dockerd gives (its pod's labels on a sandbox container beside
# it), one run with --rm (its files are gone before the analysis), and a plain containerd task (ctr). Each entry
# names the container's own id (not its pod's), its name and image, and the pod and its labels; a [Rule] chooses by
# pod namespace, by pod label and by image; ExecUpload='s %N and %O name the pod, %{KEY} a label's value.
# The crashing process lies where it can: a container is moved (as one that may write its cgroup can move itself)
# into a cgroup beneath its own named after another container, and writes that container's files in its own root;
# the entry still names it truly.
# tier: all (make check-all only)
. "$(dirname "$0")/lib.sh"
need_root "it sets kernel.core_pattern and starts containers"
for c in podman runc /usr/bin/docker dockerd containerd ctr cc; do
	command -v "$c" > /dev/null || skip "no $c (make check-all installs it)"
done
grep -q '^coresink-upload:' /etc/passwd || skip "no coresink-upload user (tests/e2e/run.sh makes it)"
scratch
start_journald
UPLOAD_ID=37d0a70e75c44cf88f269bffb484bb14
TAG=coresink-e2e-$$
# The unified hierarchy: /sys/fs/cgroup on a v2 host, /sys/fs/cgroup/unified on a hybrid one.
CGROOT=/sys/fs/cgroup
[ -d /sys/fs/cgroup/unified ] && CGROOT=/sys/fs/cgroup/unified
# The daemon that runs here, if one does; else the test's own (below).
DOCKER=(/usr/bin/docker -H unix:///run/docker.sock)
"${DOCKER[@]}" info > /dev/null 2>&1 || DOCKER=(/usr/bin/docker -H "unix://$T/docker.sock")

# The program: pauses until SIGUSR1, then crashes in its handler; "forge DIR" first writes a docker record at DIR
# in its own root.
mkdir -p "$T/rootfs" "$T/src"
cat > "$T/src/podcrash.c" <<'EOF'
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
static void crash(int sig) { (void)sig; *(volatile int *)0 = 1; }
int main(int argc, char **argv)
{
	char path[4096];
	FILE *f;

	if (argc > 2 && strcmp(argv[1], "forge") == 0) {
		snprintf(path, sizeof(path), "%s/config.v2.json", argv[2]);
		mkdir("/var", 0755), mkdir("/var/lib", 0755), mkdir("/var/lib/docker", 0755);
		mkdir("/var/lib/docker/containers", 0755), mkdir(argv[2], 0755);
		if (!(f = fopen(path, "w")))
			return 3;
		fputs("{\"Name\":\"/forged\",\"Config\":{\"Image\":\"forged:1\"}}", f);
		fclose(f);
	}
	signal(SIGUSR1, crash);
	for (;;)
		pause();
}
EOF
cc -static -O2 -o "$T/rootfs/podcrash" "$T/src/podcrash.c" || fail "cc -static (libc6-dev's libc.a)"
tar -C "$T/rootfs" -cf "$T/image.tar" .

write_config "$T/c.conf" "Directory=$T/cores" "KeepFree=64M" "RateLimitBurst=0" "RateLimitGlobalBurst=0" \
	"ExecUpload=/bin/echo ns=%N pod=%O tier=%{tier} team=%{team}"
printf '\n[Rule]\nName=team-label\nMatchContainerLabel=team=p*\nFileMode=0600\n' >> "$T/c.conf"
printf '\n[Rule]\nName=shop-small\nMatchPodNamespace=shop\nMaxCoreSize=64K\n' >> "$T/c.conf"
printf '\n[Rule]\nName=by-image\nMatchImage=*%s-dock*\nFileMode=0600\n' "$TAG" >> "$T/c.conf"
printf '\n[Rule]\nName=web-label\nMatchPodLabel=tier=front* app=nothing\nFileMode=0600\n' >> "$T/c.conf"
use_handler "$T/c.conf"

CTL() { "$B/coresinkctl" "$@"; }

# What the runtimes make at their first use (their state, the daemons' run directories): removed at exit, after
# them, where this test made it.
for d in /run/containerd /run/docker /var/lib/docker /var/lib/containers /run/containers /run/libpod; do
	[ -e "$d" ] || at_exit "rm -rf '$d'"
done
# podman's own cleanup (conmon runs "podman container cleanup" when a container ends) may still be writing there:
# waited for, where podman had not been used before (so every conmon and podman is this test's), up to 10 s.
[ -e /var/lib/containers ] ||
	at_exit 'for _ in $(seq 100); do pidof conmon podman > /dev/null || break; sleep 0.1; done'

# A runtime that cannot run a container here (not coresink's doing) skips its part, said; the test fails on what
# coresink does, and skips only when no runtime ran at all.
RAN=0
part_skip() { echo "SKIP $NAME: $*"; return 1; }

# crash_pid PID: sends the paused program its signal; its entry in E, its upload's in U (as t-upload reads it:
# JSON, a newline as \n).
crash_pid() {
	CRASH_PID=$1 CRASH_SINCE=$TEST_SINCE
	kill -USR1 "$1" || fail "kill -USR1 $1"
	# Up to 20 s, not journal_entry's 5: a local CI run (76) found none in 5 s for a docker --rm crash once, under
	# the other lane's load (passed 3 of 3 here since). A late one is said, so that a slow handler shows.
	local t
	for t in 5 10 15 20; do E=$(journal_entry "$1") && break; done
	[ -n "$E" ] || fail "no entry for pid $1 within 20 s"
	[ "$t" = 5 ] || echo "     (pid $1's entry came $((t - 5))-$t s after its crash)"
	U=
	for _ in $(seq 100); do
		U=$(jctl -r -n 1 -o json "MESSAGE_ID=$UPLOAD_ID" "COREDUMP_PID=$1" 2>/dev/null |
			jq -r 'to_entries[] | "\(.key)=\(.value | tostring | gsub("\n"; "\\n"))"')
		[ -n "$U" ] && break
		sleep 0.1
	done
}

# A process's pid on the host, once its container runs it.
wait_pid() {
	local p
	for _ in $(seq 100); do
		p=$("$@" 2>/dev/null) && [ -n "$p" ] && [ "$p" != 0 ] && { echo "$p"; return 0; }
		sleep 0.1
	done
	return 1
}

# --- podman: a pod from kube play. crun refuses this kind of host's hybrid cgroups: runc, by containers.conf.
export CONTAINERS_CONF=$T/containers.conf
cat > "$CONTAINERS_CONF" <<'EOF'
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=1024:1024", "core=-1:-1"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
EOF
cat > "$T/pod.yaml" <<EOF
apiVersion: v1
kind: Pod
metadata:
  name: web-$$
  namespace: shop
  labels:
    app: web
    tier: frontend
spec:
  hostNetwork: true
  restartPolicy: Never
  containers:
  - name: worker
    image: localhost/$TAG-pod:1
    command: ["/podcrash"]
EOF
podman_part() {
	# The pod's pause image, which podman builds at its first pod: removed if this made it.
	podman image exists localhost/podman-pause:"$(podman version -f '{{.Client.Version}}')-0" ||
		at_exit "podman rmi -f localhost/podman-pause:$(podman version -f '{{.Client.Version}}')-0 > /dev/null 2>&1"
	podman import -q "$T/image.tar" "localhost/$TAG-pod:1" > /dev/null || part_skip "podman: import failed" || return 0
	at_exit "podman rmi -f localhost/$TAG-pod:1 > /dev/null 2>&1"
	# No podman API (podman.socket) is started: the pod's name and labels come from podman's database.
	podman kube play "$T/pod.yaml" > "$T/play.log" 2>&1 ||
		part_skip "podman kube play: $(tail -n 3 "$T/play.log")" || return 0
	at_exit "podman pod rm -f web-$$ > /dev/null 2>&1"
	ctr_id=$(podman inspect -f '{{.Id}}' "web-$$-worker")
	ROOT_CTR=$ctr_id
	pod_id=$(podman pod inspect -f '{{.Id}}' "web-$$")
	pid=$(wait_pid podman inspect -f '{{.State.Pid}}' "web-$$-worker") ||
		part_skip "podman: the pod's container did not start" || return 0
	RAN=$((RAN + 1))
	crash_pid "$pid"
	check "podman pod: the container's own id, not the pod's: $(field "$E" CORESINK_CONTAINER_ID | cut -c1-12)" \
		test "$(field "$E" CORESINK_CONTAINER_ID)" = "$ctr_id"
	check "podman pod: and the pod's id beside it" test "$(field "$E" CORESINK_POD_ID)" = "$pod_id"
	check "podman pod: runtime, name, image, from podman's own record: $(field "$E" CORESINK_CONTAINER_NAME) $(field "$E" CORESINK_CONTAINER_IMAGE)" \
		all_of "$E" "CORESINK_CONTAINER_RUNTIME=podman" "CORESINK_CONTAINER_NAME=web-$$-worker" \
		"CORESINK_CONTAINER_IMAGE=localhost/$TAG-pod:1" "CORESINK_CONTAINER_FROM=bolt_state.db"
	check "podman pod: its name, from podman's database (BoltDB), no API: $(field "$E" CORESINK_POD_NAME), from $(field "$E" CORESINK_POD_FROM)" \
		all_of "$E" "CORESINK_POD_NAME=web-$$" "CORESINK_POD_FROM=bolt_state.db"
	# podman keeps no Kubernetes namespace (kube play drops it): none is made up.
	check "podman pod: no namespace made up" lacks "$E" "CORESINK_POD_NAMESPACE="
	check "podman pod: its labels, from the same record: $(field "$E" CORESINK_POD_LABELS)" \
		has_line "$E" "CORESINK_POD_LABELS=app=web tier=frontend"
	check "podman pod: no namespace, no shop rule; MatchPodLabel=tier=front* chose it" all_of "$E" \
		"CORESINK_RULE=web-label"
	check "podman pod: %N without a namespace: unknown; %O its name; %{tier} its pod's label" \
		has "$U" "CORESINK_UPLOAD_OUTPUT=ns=unknown pod=web-$$ tier=frontend "
	# A pod without an infra container has no cgroup of its own: its container lies beside any other
	# (/libpod_parent/libpod-ID), and only podman's record of the container names the pod.
	podman pod create --infra=false --name "bare-$$" --label app=bare > /dev/null 2>> "$T/play.log" &&
		podman run -d --pod "bare-$$" --name "bare-$$-worker" "localhost/$TAG-pod:1" /podcrash > /dev/null 2>> "$T/play.log" ||
		part_skip "podman: a pod without infra: $(tail -n 2 "$T/play.log")" || return 0
	at_exit "podman pod rm -f bare-$$ > /dev/null 2>&1"
	pod_id=$(podman pod inspect -f '{{.Id}}' "bare-$$")
	pid=$(wait_pid podman inspect -f '{{.State.Pid}}' "bare-$$-worker") ||
		part_skip "podman: the infra-less pod's container did not start" || return 0
	crash_pid "$pid"
	check "podman pod without infra: no pod in its cgroup ($(field "$E" COREDUMP_CGROUP)), its pod from podman's record" \
		all_of "$E" "CORESINK_POD_ID=$pod_id" "CORESINK_POD_NAME=bare-$$" "CORESINK_POD_LABELS=app=bare"
}
podman_part

# dock NAME ARG...: a container run from the image as the test's others are (no network, cores unlimited), ARG its
# docker run options and command; its id in DOCK_ID, its process's host pid in DOCK_PID. Removed at exit. 1 when
# it did not start (what docker said in $T/run.log).
dock() {
	local name=$1; shift
	"${DOCKER[@]}" run -d --name "$name" --network none --ulimit core=-1 "$@" > "$T/run.log" 2>&1 || return 1
	at_exit "${DOCKER[*]} rm -f $name > /dev/null 2>&1"
	DOCK_ID=$("${DOCKER[@]}" inspect -f '{{.Id}}' "$name")
	DOCK_PID=$(wait_pid "${DOCKER[@]}" inspect -f '{{.State.Pid}}' "$name")
}

docker_part() {
	# --- docker: our own daemon unless one runs; a container as cri-dockerd makes them, labels and all.
	if ! "${DOCKER[@]}" info > /dev/null 2>&1; then
		# Its core limit is its containers': a daemon started with 0 would give them 0.
		( ulimit -c unlimited; exec dockerd --iptables=false --ip-masq=false --bridge=none --host "unix://$T/docker.sock" \
			--pidfile "$T/docker.pid" ) > "$T/dockerd.log" 2>&1 &
		DOCKERD_PID=$!
		# Its parent cgroups, if it made them, go after it (the undos run last first).
		[ -d "$CGROOT/docker" ] || at_exit "rmdir /sys/fs/cgroup/*/docker /sys/fs/cgroup/docker 2>/dev/null"
		at_exit "stop_started DOCKERD_PID"
		for _ in $(seq 200); do "${DOCKER[@]}" info > /dev/null 2>&1 && break; sleep 0.1; done
		"${DOCKER[@]}" info > /dev/null 2>&1 || part_skip "dockerd did not start: $(tail -n 3 "$T/dockerd.log")" || return 0
	fi
	# Its command given, so that it can be a CRI pod's sandbox too (below).
	"${DOCKER[@]}" import --change 'CMD ["/podcrash"]' "$T/image.tar" "$TAG-dock:1" > /dev/null ||
		part_skip "docker import failed" || return 0
	at_exit "${DOCKER[*]} rmi -f $TAG-dock:1 > /dev/null 2>&1"
	# cri-dockerd's pod: a sandbox container with the pod's labels, and the app's container naming it.
	dock "$TAG-sbx" --label io.kubernetes.docker.type=podsandbox --label io.kubernetes.pod.name=api-0 \
		--label io.kubernetes.pod.namespace=shop --label app=api --label tier=back "$TAG-dock:1" /podcrash ||
		part_skip "docker run: $(tail -n 3 "$T/run.log")" || return 0
	dock "$TAG-web" --label io.kubernetes.pod.name=api-0 --label io.kubernetes.pod.namespace=shop \
		--label io.kubernetes.container.name=api --label "io.kubernetes.sandbox.id=$DOCK_ID" "$TAG-dock:1" /podcrash ||
		part_skip "docker run: $(tail -n 3 "$T/run.log")" || return 0
	dock_id=$DOCK_ID pid=$DOCK_PID
	RAN=$((RAN + 1))
	crash_pid "$pid"
	check "docker: its id: $(field "$E" CORESINK_CONTAINER_ID | cut -c1-12)" test "$(field "$E" CORESINK_CONTAINER_ID)" = "$dock_id"
	check "docker: the kubelet's names for it, its image, from config.v2.json" all_of "$E" \
		"CORESINK_CONTAINER_RUNTIME=docker" "CORESINK_CONTAINER_NAME=api" "CORESINK_CONTAINER_IMAGE=$TAG-dock:1" \
		"CORESINK_POD_NAME=api-0" "CORESINK_POD_NAMESPACE=shop" "CORESINK_CONTAINER_FROM=config.v2.json"
	check "docker: the pod's labels, from its sandbox container's: $(field "$E" CORESINK_POD_LABELS)" \
		has_line "$E" "CORESINK_POD_LABELS=app=api tier=back"
	check "docker: [Rule] MatchPodNamespace=shop chose it (the first that matches)" has_line "$E" "CORESINK_RULE=shop-small"
	check "docker: and the rule's MaxCoreSize=64K cut it" test "$(field "$E" CORESINK_RESULT)" = truncated
	check "docker: ExecUpload='s %N %O %{tier} (the sandbox's label) %{team} (none): $(field "$U" CORESINK_UPLOAD_OUTPUT)" \
		has_line "$U" 'CORESINK_UPLOAD_OUTPUT=ns=shop pod=api-0 tier=back team=unknown\n'
	out=$(CTL info "$pid" 2>&1)
	check "coresinkctl info shows the container and the pod" all_of_re "$out" \
		"^ *Container: api \\(docker ${dock_id:0:12}\\)$" "^ *Image: $TAG-dock:1$" "^ *Pod: shop/api-0$" \
		"^ *Pod Labels: app=api tier=back$"
	check "coresinkctl list matches on a pod's namespace" \
		matches "$(CTL list CORESINK_POD_NAMESPACE=shop --since "$TEST_SINCE" 2>&1)" " $pid "

	# --rm: docker removes the container, its files with it, as soon as its process has gone; the names were read
	# before the release.
	dock "$TAG-gone" --rm "$TAG-dock:1" /podcrash || fail "docker run --rm: $(tail -n 3 "$T/run.log")"
	gone_id=$DOCK_ID pid=$DOCK_PID
	crash_pid "$pid"
	for _ in $(seq 100); do [ -e "/var/lib/docker/containers/$gone_id" ] || break; sleep 0.1; done
	check "--rm: its files are gone now" test ! -e "/var/lib/docker/containers/$gone_id"
	check "--rm: and the entry named it: $(field "$E" CORESINK_CONTAINER_NAME)" all_of "$E" \
		"CORESINK_CONTAINER_ID=$gone_id" "CORESINK_CONTAINER_NAME=$TAG-gone" "CORESINK_CONTAINER_IMAGE=$TAG-dock:1"
	check "--rm: MatchImage= chose its rule" has_line "$E" "CORESINK_RULE=by-image"

	# A plain container's own labels (docker run --label): recorded, those in a label's alphabet, and matched.
	dock "$TAG-lbl" --label team=pay --label "note=two words" --label com.example.tier=back "$TAG-dock:1" /podcrash ||
		fail "docker run --label: $(tail -n 3 "$T/run.log")"
	crash_pid "$DOCK_PID"
	check "docker --label: the container's own labels: $(field "$E" CORESINK_CONTAINER_LABELS)" \
		has_line "$E" "CORESINK_CONTAINER_LABELS=com.example.tier=back team=pay"
	check "docker --label: MatchContainerLabel=team=p* chose its rule" has_line "$E" "CORESINK_RULE=team-label"
	check "docker --label: ExecUpload='s %{team} its own label, %{tier} none (com.example.tier is another key): $(field "$U" CORESINK_UPLOAD_OUTPUT)" \
		has_line "$U" 'CORESINK_UPLOAD_OUTPUT=ns=unknown pod=unknown tier=unknown team=pay\n'
	out=$(CTL --config "$T/c.conf" info "$DOCK_PID" 2>&1)
	check "coresinkctl info shows them" matches "$out" "Labels: com.example.tier=back team=pay"

	# The liar: it is moved into a cgroup beneath its own named after the first container (what a container that may
	# write its cgroup, privileged or given it, can do itself; done from outside here, where this machine refuses a
	# privileged container its capabilities), and writes a record for it in its own root.
	dock "$TAG-evil" "$TAG-dock:1" /podcrash forge "/var/lib/docker/containers/$dock_id" ||
		fail "docker run (the forger): $(tail -n 3 "$T/run.log")"
	evil_id=$DOCK_ID pid=$DOCK_PID
	# A child of its unified cgroup named docker/ID, and the process moved there.
	cg=$(sed -n 's/^0:://p' "/proc/$pid/cgroup")
	moved=$CGROOT$cg/docker/$dock_id
	mkdir -p "$moved" && echo "$pid" > "$moved/cgroup.procs" || fail "moving the forger into $moved"
	at_exit "rmdir '$moved' '$(dirname "$moved")' 2>/dev/null"
	check "the forger's cgroup now names the other container" matches "$(cat "/proc/$pid/cgroup")" "docker/$dock_id\$"
	crash_pid "$pid"
	check "the forger's entry names the forger, not whom it named: $(field "$E" CORESINK_CONTAINER_ID | cut -c1-12)" \
		test "$(field "$E" CORESINK_CONTAINER_ID)" = "$evil_id"
	check "and its own record, not the one it wrote in its root" all_of "$E" "CORESINK_CONTAINER_NAME=$TAG-evil" \
		"CORESINK_CONTAINER_IMAGE=$TAG-dock:1"
	check "and no pod of the other's" none_of "$E" "CORESINK_POD_NAME=" "CORESINK_POD_NAMESPACE="

	# Socket mode: the server, not a handler the kernel starts, reads the cgroup and the runtime's files, before it
	# lets the process go; then the pipe pattern is back for the parts below.
	if have_socket_mode; then
		write_config "$T/k.conf" "Directory=$T/cores" "KeepFree=64M" "RateLimitBurst=0" "RateLimitGlobalBurst=0" \
			"Socket=$T/sock/kernel.socket"
		start_server "$T/k.conf"
		use_socket "$T/k.conf"
		dock "$TAG-sock" --label io.kubernetes.pod.name=api-1 --label io.kubernetes.pod.namespace=shop "$TAG-dock:1" \
			/podcrash || fail "docker run (socket mode): $(tail -n 3 "$T/run.log")"
		sock_id=$DOCK_ID pid=$DOCK_PID
		crash_pid "$pid"
		check "socket mode: the server names it as the handler does" all_of "$E" "CORESINK_MODE=socket" \
			"CORESINK_CONTAINER_ID=$sock_id" "CORESINK_CONTAINER_NAME=$TAG-sock" "CORESINK_POD_NAME=api-1" \
			"CORESINK_POD_NAMESPACE=shop" "CORESINK_CONTAINER_IMAGE=$TAG-dock:1"
		stop_server
		use_handler "$T/c.conf"
	fi
}
docker_part

containerd_part() {
	# --- plain containerd (ctr): its own daemon, on its own socket; the task's bundle confirms /NAMESPACE/ID.
	# The namespace's cgroups and run directories, left when its last task has gone.
	at_exit "rmdir /sys/fs/cgroup/*/$TAG /sys/fs/cgroup/$TAG 2>/dev/null; rm -rf /run/containerd/io.containerd.runtime.v2.task/$TAG /run/containerd/runc/$TAG"
	if [ ! -S /run/containerd/containerd.sock ]; then
		# Its state and root its own, as k3s's and rke2's are (the handler finds them from the running
		# containerd's config). Its CRI plugin as a node's, less the network: the pods below use the host's; the
		# sandbox is our image; a container's oom_score_adj no lower than the daemon's (this machine refuses the
		# kubelet's -998).
		mkdir -p "$T/containerd" "$T/cni/bin" "$T/cni/conf"
		CONTAINERD_ROOT=$T/containerd/root
		cat > "$T/containerd.toml" <<-EOF
			version = 2
			root = "$CONTAINERD_ROOT"
			state = "$T/containerd/state"
			[grpc]
			  address = "$T/containerd.sock"
			[plugins."io.containerd.grpc.v1.cri"]
			  sandbox_image = "docker.io/library/$TAG-dock:1"
			  restrict_oom_score_adj = true
			  [plugins."io.containerd.grpc.v1.cri".cni]
			    bin_dir = "$T/cni/bin"
			    conf_dir = "$T/cni/conf"
		EOF
		CRI_SOCK=$T/containerd.sock
		( ulimit -c unlimited; exec containerd --config "$T/containerd.toml" ) > "$T/containerd.log" 2>&1 &
		CONTAINERD_PID=$!
		at_exit "stop_started CONTAINERD_PID"
		CTR=(ctr --address "$T/containerd.sock" -n "$TAG")
		for _ in $(seq 100); do "${CTR[@]}" version > /dev/null 2>&1 && break; sleep 0.1; done
	else
		CTR=(ctr -n "$TAG")
		CONTAINERD_ROOT=/var/lib/containerd     # a system containerd's, by default
	fi
	# The image, as docker save wrote it (the docker part's).
	"${DOCKER[@]}" save "$TAG-dock:1" > "$T/saved.tar" 2>/dev/null || part_skip "containerd: no image to import (docker save)" || return 0
	"${CTR[@]}" image import "$T/saved.tar" > /dev/null 2>&1 || part_skip "ctr image import: $(tail -n 3 "$T/containerd.log")" || return 0
	at_exit "${CTR[*]} image rm docker.io/library/$TAG-dock:1 > /dev/null 2>&1"
	"${CTR[@]}" run -d --runtime io.containerd.runc.v2 "docker.io/library/$TAG-dock:1" "task-$$" /podcrash > "$T/ctr.log" 2>&1 ||
		part_skip "ctr run: $(tail -n 3 "$T/ctr.log")" || return 0
	at_exit "${CTR[*]} task kill -s KILL task-$$ > /dev/null 2>&1; ${CTR[*]} container rm task-$$ > /dev/null 2>&1"
	pid=$(wait_pid sh -c "${CTR[*]} task ls | awk '\$1 == \"task-$$\" { print \$2 }'") || part_skip "ctr: no task started" || return 0
	RAN=$((RAN + 1))
	crash_pid "$pid"
	check "plain containerd: /$TAG/task-$$, confirmed by its bundle (state ${CONTAINERD_ROOT%/root}/state)" all_of "$E" \
		"CORESINK_CONTAINER_RUNTIME=containerd" "CORESINK_CONTAINER_ID=task-$$" "CORESINK_CONTAINER_FROM=config.json"
	check "plain containerd: its image, from its containerd's database in $CONTAINERD_ROOT: $(field "$E" CORESINK_CONTAINER_IMAGE)" \
		has_line "$E" "CORESINK_CONTAINER_IMAGE=docker.io/library/$TAG-dock:1"
}
containerd_part

# --- containerd's CRI plugin, driven as the kubelet drives it (tests/helpers/cri-client.py: RunPodSandbox,
# CreateContainer, StartContainer over the CRI's gRPC), in the kubelet's cgroupfs layout. Only with the test's own
# containerd: a system one's CRI plugin has a node's config.
cri_part() {
	local uid cg ids sandbox_id cid
	[ -n "${CRI_SOCK:-}" ] || part_skip "containerd CRI: a containerd runs here already" || return 0
	/usr/bin/python3 -m grpc_tools.protoc -I"$TOP/tests/helpers" --python_out="$T" --grpc_python_out="$T" \
		"$TOP/tests/helpers/cri.proto" || part_skip "containerd CRI: no grpc_tools (python3-grpc-tools)" || return 0
	ctr --address "$CRI_SOCK" -n k8s.io image import "$T/saved.tar" > /dev/null 2>&1 ||
		part_skip "containerd CRI: ctr image import" || return 0
	uid=$(cat /proc/sys/kernel/random/uuid)
	cg=/kubepods/besteffort/pod$uid
	# The kubelet's cgroups: made here, removed at exit (all of kubepods if this made it).
	if [ -d "$CGROOT/kubepods" ]; then
		at_exit "rmdir /sys/fs/cgroup/*$cg /sys/fs/cgroup$cg 2>/dev/null"
	else
		at_exit "find /sys/fs/cgroup -depth -type d -path '*/kubepods*' -exec rmdir {} + 2>/dev/null"
	fi
	ids=$(/usr/bin/python3 "$TOP/tests/helpers/cri-client.py" "$T" "$CRI_SOCK" pod "web-cri-$$" billing "$uid" "$cg" \
		worker "docker.io/library/$TAG-dock:1" /podcrash app=web tier=back 2> "$T/cri.log") ||
		part_skip "containerd CRI: $(tail -n 2 "$T/cri.log")" || return 0
	sandbox_id=$(sed -n 1p <<< "$ids") cid=$(sed -n 2p <<< "$ids")
	at_exit "/usr/bin/python3 '$TOP/tests/helpers/cri-client.py' '$T' '$CRI_SOCK' remove $sandbox_id > /dev/null 2>&1"
	pid=$(wait_pid sh -c "ctr --address '$CRI_SOCK' -n k8s.io task ls | awk '\$1 == \"$cid\" { print \$2 }'") ||
		part_skip "containerd CRI: the container did not start" || return 0
	RAN=$((RAN + 1)) CRI_RAN=1
	crash_pid "$pid"
	check "containerd CRI: the container's id, in the kubelet's layout: $(field "$E" CORESINK_CONTAINER_ID | cut -c1-12)" \
		all_of "$E" "CORESINK_CONTAINER_ID=$cid" "CORESINK_CONTAINER_RUNTIME=containerd" "CORESINK_POD_UID=$uid"
	check "containerd CRI: the pod and container as the kubelet named them, from the bundle's annotations" all_of "$E" \
		"CORESINK_CONTAINER_NAME=worker" "CORESINK_CONTAINER_IMAGE=docker.io/library/$TAG-dock:1" \
		"CORESINK_POD_NAME=web-cri-$$" "CORESINK_POD_NAMESPACE=billing" "CORESINK_CONTAINER_FROM=config.json"
	check "containerd CRI: ExecUpload='s %N %O: $(field "$U" CORESINK_UPLOAD_OUTPUT)" \
		has_line "$U" "CORESINK_UPLOAD_OUTPUT=ns=billing pod=web-cri-$$ tier=back team=unknown\n"
	check "containerd CRI: the pod's labels, from its containerd's database in $CONTAINERD_ROOT: $(field "$E" CORESINK_POD_LABELS)" \
		has_line "$E" "CORESINK_POD_LABELS=app=web tier=back"
}
cri_part

# --- rootless podman: a user's own container, named by their podman (its database in their home, read as them in
# the sandbox). podman 4 makes the record here (podman create: nothing needs to run); the process that crashes is put
# in the cgroup a user's systemd gives a rootless container (user@UID.service/.../libpod-ID.scope), which this host,
# without systemd, cannot give (the VM tier runs the real one). A scope the user names after root's container is not
# root's container; a database the user swapped for a FIFO costs the capture its bound, no more.
rootless_part() {
	local user=csrl$$ uid gid home id cg pid t0 t1
	command -v newuidmap > /dev/null || { part_skip "rootless podman: no newuidmap (uidmap)"; return 0; }
	useradd -m -d "/home/$user" "$user" || fail "useradd $user"
	uid=$(id -u "$user") gid=$(id -g "$user") home=/home/$user
	at_exit "userdel -r $user > /dev/null 2>&1; rm -rf $home /tmp/podman-run-$uid /tmp/containers-user-$uid /tmp/storage-run-$uid"
	# The pause process rootless podman leaves (its pid in its run directory): ours, ended by pid.
	at_exit "kill \$(cat /tmp/podman-run-$uid/libpod/tmp/pause.pid 2>/dev/null) 2>/dev/null"
	cp "$T/image.tar" "$T/rootfs/podcrash" "$home/" && chown "$user" "$home/image.tar" "$home/podcrash"
	as_user() { runuser -u "$user" -- env -u CONTAINERS_CONF -C "$home" "$@"; }
	as_user podman import -q image.tar "localhost/$TAG-rl:1" > "$T/rl.log" 2>&1 &&
		as_user podman create -q --name "rl-$$" --label team=rootless --label "bad=two words" \
			"localhost/$TAG-rl:1" /podcrash >> "$T/rl.log" 2>&1 ||
		part_skip "rootless podman: $(tail -n 2 "$T/rl.log" | tr '\n' ' ')" || return 0
	id=$(as_user podman inspect -f '{{.Id}}' "rl-$$")
	RAN=$((RAN + 1))
	local slice=$CGROOT/user.slice/user-$uid.slice/user@$uid.service/user.slice
	# The user's slices this test made, child first (those a systemd host had are not empty, and stay).
	at_exit "rmdir '$slice' '${slice%/*}' '${slice%/*/*}' '$CGROOT/user.slice' 2>/dev/null"
	rootless_crash() {
		cg=$slice/libpod-$1.scope
		mkdir -p "$cg" || fail "mkdir $cg"
		at_exit "rmdir '$cg' 2>/dev/null"
		( echo "$BASHPID" > "$cg/cgroup.procs" && ulimit -c unlimited &&
			exec setpriv --reuid="$uid" --regid="$gid" --clear-groups "$home/podcrash" ) &
		pid=$!
		wait_caught "$pid" USR1 || fail "podcrash ($pid) never took SIGUSR1"
		t0=$(date +%s%N)
		crash_pid "$pid"
		t1=$(date +%s%N)
	}
	rootless_crash "$id"
	check "rootless podman: the user's container named by their podman 4's database: $(field "$E" CORESINK_CONTAINER_NAME) $(field "$E" CORESINK_CONTAINER_IMAGE)" \
		all_of "$E" "CORESINK_CONTAINER_ID=$id" "CORESINK_CONTAINER_RUNTIME=podman" "CORESINK_CONTAINER_NAME=rl-$$" \
		"CORESINK_CONTAINER_IMAGE=localhost/$TAG-rl:1" "CORESINK_CONTAINER_FROM=rootless bolt_state.db"
	check "rootless podman: its own labels, those in a label's alphabet: $(field "$E" CORESINK_CONTAINER_LABELS)" \
		has_line "$E" "CORESINK_CONTAINER_LABELS=team=rootless"
	check "rootless podman: %{team} in the upload's path: $(field "$U" CORESINK_UPLOAD_OUTPUT)" \
		has "$U" "CORESINK_UPLOAD_OUTPUT=ns=unknown pod=unknown tier=unknown team=rootless"
	# The user names a scope after root's podman container (podman_part's, where it ran): not root's container.
	if [ -n "${ROOT_CTR:-}" ]; then
		rootless_crash "$ROOT_CTR"
		check "rootless podman: a user's scope named after root's container is not it: $(field "$E" CORESINK_CONTAINER_FROM)" \
			all_of "$E" "CORESINK_CONTAINER_ID=$ROOT_CTR" "CORESINK_CONTAINER_FROM=none: uid $uid's podman: no record of it"
		check "rootless podman: and root's container's name is not given" lacks "$E" "CORESINK_CONTAINER_NAME="
	fi
	# Their database swapped for a FIFO: not waited on past the bound; the core stored all the same.
	mv "$home/.local/share/containers/storage/libpod/bolt_state.db" "$T/rl-bolt.db"
	runuser -u "$user" -- mkfifo "$home/.local/share/containers/storage/libpod/bolt_state.db"
	rootless_crash "$id"
	check "rootless podman: a FIFO for a database: nothing named, in $(( (t1 - t0) / 1000000 )) ms: $(field "$E" CORESINK_CONTAINER_FROM)" \
		all_of "$E" "CORESINK_CONTAINER_ID=$id" "CORESINK_RESULT=stored"
	check "rootless podman: and no name made up" lacks "$E" "CORESINK_CONTAINER_NAME="
}
rootless_part

# A cgroup of the same shape that no task has names no container.
mkdir -p "$CGROOT/coresink-e2e-ns/not-a-task"
at_exit "rmdir '$CGROOT/coresink-e2e-ns/not-a-task' '$CGROOT/coresink-e2e-ns' 2>/dev/null"
{ ( echo "$BASHPID" > "$CGROOT/coresink-e2e-ns/not-a-task/cgroup.procs"; ulimit -c unlimited
    exec "$CRASHER" 1 ) & p=$!; wait $p; } 2>/dev/null
CRASH_PID=$p
E=$(journal_entry "$p") || fail "no entry for the crash in /coresink-e2e-ns/not-a-task"
check "a /NS/ID cgroup no runtime has: no container" none_of "$E" "CORESINK_CONTAINER_ID=" "CORESINK_CONTAINER_RUNTIME="

[ "$RAN" -gt 0 ] || skip "no container runtime could run a container here"

# --summary: the same bug in every container above, one group; the pods' namespaces it crashed in, counted (one
# crash in a pod of namespace shop: the docker part's).
[ -n "${dock_id:-}" ] || exit 0
out=$("$CORESINK" --config "$T/c.conf" --summary --since "$TEST_SINCE" 2>&1)
check "--summary: the namespaces of the pods it crashed in: $(grep -o 'in pods of namespaces:.*' <<< "$out")" \
	all_of_re "$out" "in pods of namespaces:.* shop 1( |$)" "${CRI_RAN:+in pods of namespaces:.* billing 1( |$)}"
