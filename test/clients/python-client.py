# Drives the gateway with Debian's python3-kubernetes, as a user's script would: the kubeconfig
# path comes as the first argument; prints one line per check and exits non-zero on failure.
import json
import sys

from kubernetes import client, config, watch

config.load_kube_config(config_file=sys.argv[1])
core = client.CoreV1Api()

names = [n.metadata.name for n in core.list_namespace().items]
assert "default" in names, names
print("namespaces ok")

cm = client.V1ConfigMap(metadata=client.V1ObjectMeta(name="py-cm", labels={"from": "python"}), data={"a": "1"})
created = core.create_namespaced_config_map("default", cm)
assert created.metadata.resource_version, created
print("create ok")

got = core.read_namespaced_config_map("py-cm", "default")
assert got.data == {"a": "1"}, got.data
# A list body goes as a JSON patch; a dict would go as a strategic merge patch, which comes with
# a later issue.
patched = core.patch_namespaced_config_map("py-cm", "default", [{"op": "add", "path": "/data/b", "value": "2"}])
assert patched.data == {"a": "1", "b": "2"}, patched.data
print("read and patch ok")

page = core.list_namespaced_config_map("default", limit=1, label_selector="from=python")
assert len(page.items) == 1
print("list ok")

w = watch.Watch()
seen = []
for event in w.stream(core.list_namespaced_config_map, "default", label_selector="from=python", timeout_seconds=5):
    seen.append((event["type"], event["object"].metadata.name))
    w.stop()
assert seen == [("ADDED", "py-cm")], seen
print("watch ok")

try:
    core.read_namespaced_config_map("missing", "default")
    raise AssertionError("expected 404")
except client.exceptions.ApiException as e:
    assert e.status == 404, e.status
print("not found ok")

core.delete_namespaced_config_map("py-cm", "default")
print("delete ok")

# Admission: a pod naming an account that does not exist is refused with a Status.
try:
    core.create_namespaced_pod("default", {
        "metadata": {"name": "py-ghost"},
        "spec": {"serviceAccountName": "ghost", "containers": [{"name": "c", "image": "nginx"}]},
    })
    raise AssertionError("expected 403")
except client.exceptions.ApiException as e:
    assert e.status == 403, e.status
    status = json.loads(e.body)
    assert status["reason"] == "Forbidden", status
    assert 'serviceaccount "ghost" not found' in status["message"], status["message"]
print("admission ok")
