#!/usr/bin/python3
"""cri-client.py: starts a pod and its container through a runtime's CRI socket, as the kubelet does
(RunPodSandbox, CreateContainer, StartContainer), or removes the pod. For t-pods, without a kubelet.

usage: cri-client.py PROTO_DIR SOCKET pod NAME NAMESPACE UID CGROUP_PARENT CONTAINER IMAGE COMMAND [KEY=VALUE...]
       cri-client.py PROTO_DIR SOCKET remove SANDBOX_ID
PROTO_DIR holds cri_pb2.py and cri_pb2_grpc.py, made from tests/helpers/cri.proto by grpc_tools.protoc.
KEY=VALUE are the pod's labels. Prints the sandbox's id and the container's, one a line.
"""
import sys

sys.path.insert(0, sys.argv[1])
import grpc  # noqa: E402
import cri_pb2 as api  # noqa: E402
import cri_pb2_grpc as rpc  # noqa: E402


def main(argv):
    channel = grpc.insecure_channel("unix://" + argv[2])
    runtime = rpc.RuntimeServiceStub(channel)
    if argv[3] == "remove":
        runtime.StopPodSandbox(api.StopPodSandboxRequest(pod_sandbox_id=argv[4]), timeout=60)
        runtime.RemovePodSandbox(api.RemovePodSandboxRequest(pod_sandbox_id=argv[4]), timeout=60)
        return 0
    name, namespace, uid, parent, container, image, command = argv[4:11]
    labels = dict(kv.split("=", 1) for kv in argv[11:])
    # The host's network, as a hostNetwork pod's: no CNI needed. The kubelet's own labels and annotations.
    node = api.NamespaceOption(network=api.NODE, pid=api.CONTAINER, ipc=api.POD)
    sandbox = api.PodSandboxConfig(
        metadata=api.PodSandboxMetadata(name=name, uid=uid, namespace=namespace, attempt=0),
        labels=dict(labels, **{"io.kubernetes.pod.name": name, "io.kubernetes.pod.namespace": namespace,
                               "io.kubernetes.pod.uid": uid}),
        annotations={"kubernetes.io/config.source": "api"},
        linux=api.LinuxPodSandboxConfig(
            cgroup_parent=parent,
            security_context=api.LinuxSandboxSecurityContext(namespace_options=node)))
    sandbox_id = runtime.RunPodSandbox(api.RunPodSandboxRequest(config=sandbox), timeout=120).pod_sandbox_id
    config = api.ContainerConfig(
        metadata=api.ContainerMetadata(name=container, attempt=0),
        image=api.ImageSpec(image=image),
        command=[command],
        labels={"io.kubernetes.container.name": container, "io.kubernetes.pod.name": name,
                "io.kubernetes.pod.namespace": namespace, "io.kubernetes.pod.uid": uid},
        linux=api.LinuxContainerConfig(
            security_context=api.LinuxContainerSecurityContext(namespace_options=node)))
    container_id = runtime.CreateContainer(
        api.CreateContainerRequest(pod_sandbox_id=sandbox_id, config=config, sandbox_config=sandbox),
        timeout=120).container_id
    runtime.StartContainer(api.StartContainerRequest(container_id=container_id), timeout=120)
    print(sandbox_id)
    print(container_id)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
