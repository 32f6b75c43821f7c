// Realistic, already-defaulted objects for the validator tests, and helpers to vary them.
import type { FieldError } from "../../registry/field-error.ts";
import type { Json } from "./util.ts";

/** [field, type, detail] of each error; NotSupported shows its supported values as the detail. */
export function shape(errs: FieldError[]): string[][] {
  return errs.map((e) => [
    e.field,
    e.type.replace("FieldValue", ""),
    e.type === "FieldValueNotSupported" ? (e.supported ?? []).join("|") : (e.detail ?? ""),
  ]);
}

/** A deep copy with `edit` applied. */
export function variant<T extends Json>(base: T, edit: (copy: T) => void): T {
  const copy = structuredClone(base);
  edit(copy);
  return copy;
}

export function podSpec(): Json {
  return {
    containers: [
      {
        name: "web",
        image: "registry.example/web:1.4.2",
        imagePullPolicy: "IfNotPresent",
        args: ["--port=8080"],
        ports: [
          { name: "http", containerPort: 8080, protocol: "TCP" },
          { name: "metrics", containerPort: 9090, protocol: "TCP" },
        ],
        env: [
          { name: "LOG_LEVEL", value: "info" },
          { name: "POD_NAME", valueFrom: { fieldRef: { apiVersion: "v1", fieldPath: "metadata.name" } } },
          {
            name: "DB_PASSWORD",
            valueFrom: { secretKeyRef: { name: "db-credentials", key: "password" } },
          },
          {
            name: "MEMORY_LIMIT",
            valueFrom: { resourceFieldRef: { resource: "limits.memory", divisor: "1Mi" } },
          },
        ],
        envFrom: [{ configMapRef: { name: "web-config" } }],
        resources: {
          requests: { cpu: "250m", memory: "256Mi" },
          limits: { cpu: "1", memory: "512Mi", "ephemeral-storage": "1Gi" },
        },
        volumeMounts: [
          { name: "config", mountPath: "/etc/web", readOnly: true },
          { name: "cache", mountPath: "/var/cache/web" },
          { name: "tls", mountPath: "/etc/tls", readOnly: true },
        ],
        livenessProbe: {
          httpGet: { path: "/healthz", port: "http", scheme: "HTTP" },
          initialDelaySeconds: 10,
          timeoutSeconds: 1,
          periodSeconds: 10,
          successThreshold: 1,
          failureThreshold: 3,
        },
        readinessProbe: {
          tcpSocket: { port: 8080 },
          timeoutSeconds: 1,
          periodSeconds: 5,
          successThreshold: 1,
          failureThreshold: 3,
        },
        startupProbe: {
          exec: { command: ["cat", "/tmp/ready"] },
          timeoutSeconds: 1,
          periodSeconds: 10,
          successThreshold: 1,
          failureThreshold: 30,
        },
        lifecycle: { preStop: { exec: { command: ["sleep", "5"] } } },
        securityContext: {
          runAsNonRoot: true,
          runAsUser: 10001,
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ["ALL"] },
          seccompProfile: { type: "RuntimeDefault" },
        },
        terminationMessagePath: "/dev/termination-log",
        terminationMessagePolicy: "File",
      },
    ],
    initContainers: [
      {
        name: "migrate",
        image: "registry.example/web:1.4.2",
        imagePullPolicy: "IfNotPresent",
        command: ["/bin/migrate"],
        resources: { requests: { cpu: "100m" }, limits: { cpu: "200m" } },
        terminationMessagePath: "/dev/termination-log",
        terminationMessagePolicy: "File",
      },
    ],
    volumes: [
      {
        name: "config",
        configMap: { name: "web-config", defaultMode: 420, items: [{ key: "app.yaml", path: "app.yaml" }] },
      },
      { name: "cache", emptyDir: { sizeLimit: "1Gi" } },
      { name: "tls", secret: { secretName: "web-tls", defaultMode: 256 } },
      {
        name: "token",
        projected: {
          defaultMode: 420,
          sources: [
            { serviceAccountToken: { path: "token", expirationSeconds: 3607 } },
            { configMap: { name: "root-ca", items: [{ key: "ca.crt", path: "ca.crt" }] } },
            {
              downwardAPI: {
                items: [
                  { path: "namespace", fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" } },
                ],
              },
            },
          ],
        },
      },
    ],
    restartPolicy: "Always",
    terminationGracePeriodSeconds: 30,
    dnsPolicy: "ClusterFirst",
    serviceAccountName: "web",
    serviceAccount: "web",
    securityContext: {
      runAsNonRoot: true,
      fsGroup: 2000,
      supplementalGroups: [3000],
      seccompProfile: { type: "RuntimeDefault" },
      sysctls: [{ name: "net.ipv4.ip_local_port_range", value: "1024 65000" }],
    },
    nodeSelector: { "example.com/pool": "web" },
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [
            { matchExpressions: [{ key: "example.com/arch", operator: "In", values: ["amd64", "arm64"] }] },
          ],
        },
        preferredDuringSchedulingIgnoredDuringExecution: [
          { weight: 50, preference: { matchExpressions: [{ key: "example.com/ssd", operator: "Exists" }] } },
        ],
      },
      podAntiAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [
          {
            weight: 100,
            podAffinityTerm: {
              labelSelector: { matchLabels: { app: "web" } },
              topologyKey: "example.com/hostname",
            },
          },
        ],
      },
    },
    tolerations: [
      { key: "example.com/dedicated", operator: "Equal", value: "web", effect: "NoSchedule" },
      {
        key: "node.example.com/unreachable",
        operator: "Exists",
        effect: "NoExecute",
        tolerationSeconds: 300,
      },
    ],
    topologySpreadConstraints: [
      {
        maxSkew: 1,
        topologyKey: "example.com/zone",
        whenUnsatisfiable: "ScheduleAnyway",
        labelSelector: { matchLabels: { app: "web" } },
      },
    ],
    schedulerName: "default-scheduler",
    priorityClassName: "web-critical",
    enableServiceLinks: true,
  };
}

export function deployment(): Json {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", namespace: "shop", uid: "1b4e28ba-2fa1-11d2-883f-0016d3cca427" },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: "web" } },
      template: { metadata: { labels: { app: "web", tier: "frontend" } }, spec: podSpec() },
      strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "25%", maxSurge: "25%" } },
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
      minReadySeconds: 5,
    },
  };
}

export function pod(): Json {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web-0", namespace: "shop" },
    spec: podSpec(),
  };
}

export function service(): Json {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "web", namespace: "shop" },
    spec: {
      type: "ClusterIP",
      selector: { app: "web" },
      ports: [
        { name: "http", port: 80, targetPort: "http", protocol: "TCP" },
        { name: "metrics", port: 9090, targetPort: 9090, protocol: "TCP", appProtocol: "http" },
      ],
      clusterIP: "10.96.14.7",
      clusterIPs: ["10.96.14.7"],
      ipFamilies: ["IPv4"],
      ipFamilyPolicy: "SingleStack",
      sessionAffinity: "None",
      internalTrafficPolicy: "Cluster",
    },
  };
}

export function cronJob(): Json {
  const spec = podSpec();
  spec.restartPolicy = "OnFailure";
  delete spec.initContainers;
  return {
    apiVersion: "batch/v1",
    kind: "CronJob",
    metadata: { name: "nightly-report", namespace: "shop" },
    spec: {
      schedule: "30 2 * * 1-5",
      timeZone: "Europe/Berlin",
      concurrencyPolicy: "Forbid",
      startingDeadlineSeconds: 300,
      successfulJobsHistoryLimit: 3,
      failedJobsHistoryLimit: 1,
      suspend: false,
      jobTemplate: {
        spec: {
          backoffLimit: 2,
          activeDeadlineSeconds: 3600,
          ttlSecondsAfterFinished: 86400,
          completionMode: "NonIndexed",
          template: { metadata: { labels: { app: "report" } }, spec },
        },
      },
    },
  };
}

export function job(): Json {
  const spec = podSpec();
  spec.restartPolicy = "Never";
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: "import", namespace: "shop", uid: "9f1c2b4a-1111-4c4c-8a8a-0123456789ab" },
    spec: {
      parallelism: 2,
      completions: 4,
      backoffLimit: 6,
      completionMode: "NonIndexed",
      suspend: false,
      template: { metadata: { labels: { app: "import" } }, spec },
    },
  };
}
