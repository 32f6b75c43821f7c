// apiregistration/v1: APIService, which tells the aggregator which server answers for a group
// version and in what order versions and groups are listed.
import { atomic, f, mapList, mergeBy, pkg, required, t } from "./model.ts";

export const APIREGISTRATION_V1 = pkg(
  "apiregistration/v1",
  "k8s.io.kube_aggregator.pkg.apis.apiregistration.v1",
  {
    APIService: t(
      "Registers the server that handles one API group version; its name is `<version>.<group>`.",
      {
        metadata: f(1, "meta/v1.ObjectMeta", "The object's metadata: name, labels, annotations and so on."),
        spec: f(2, "APIServiceSpec", "Where the serving backend is and how to talk to it."),
        status: f(3, "APIServiceStatus", "What has been observed about the backend's availability."),
      },
    ),
    APIServiceCondition: t("One aspect of an APIService's current state.", {
      type: f(1, "string", "Which aspect this is, for example Available.", { ...required, omitEmpty: false }),
      status: f(2, "string", "Whether the condition holds: True, False or Unknown.", {
        ...required,
        omitEmpty: false,
      }),
      lastTransitionTime: f(3, "time", "When the status last changed value."),
      reason: f(4, "string", "Short CamelCase word giving the cause of the latest change."),
      message: f(5, "string", "Human-readable details about the latest change."),
    }),
    APIServiceSpec: t("How to locate and contact the server for a group version; only HTTPS is used.", {
      service: f(
        1,
        "ServiceReference",
        "The Service in front of the backend, reached on port 443 unless another is given. When unset, this API server handles the group version itself.",
        { pointer: true },
      ),
      group: f(2, "string", "API group the backend serves."),
      version: f(3, "string", "API version the backend serves, such as `v1`."),
      insecureSkipTLSVerify: f(
        4,
        "bool",
        "Skip checking the backend's serving certificate. Discouraged; set caBundle instead.",
      ),
      caBundle: f(
        5,
        "bytes",
        "PEM certificate authorities that signed the backend's serving certificate; the system roots when empty.",
        atomic,
      ),
      groupPriorityMinimum: f(
        7,
        "int32",
        "Lower bound on the group's priority in discovery; groups sort from the highest priority down, then by name. The group's effective priority is the largest value among its versions.",
        { ...required, omitEmpty: false },
      ),
      versionPriority: f(
        8,
        "int32",
        "Order of this version within its group, highest first, greater than zero; ties fall back to version-string ordering (stable before beta before alpha).",
        { ...required, omitEmpty: false },
      ),
    }),
    APIServiceStatus: t("The observed state of an APIService.", {
      conditions: f(1, "[]APIServiceCondition", "Current conditions, at most one per type.", {
        ...mergeBy("type"),
        ...mapList("type"),
      }),
    }),
    ServiceReference: t("Points at the in-cluster Service fronting an API backend.", {
      namespace: f(1, "string", "Namespace the Service is in."),
      name: f(2, "string", "Name of the Service."),
      port: f(3, "int32", "Service port to call, 1 to 65535; 443 when unset.", { pointer: true }),
    }),
  },
);
