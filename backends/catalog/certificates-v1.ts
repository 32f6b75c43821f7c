// certificates/v1: CertificateSigningRequest, through which clients ask a signer for an x509
// certificate and approvers accept or refuse the request.
import { atomic, f, mapList, pkg, required, t } from "./model.ts";

// The key usages a request may ask for (upstream's KeyUsage values, sorted).
const KEY_USAGES = [
  "any",
  "cert sign",
  "client auth",
  "code signing",
  "content commitment",
  "crl sign",
  "data encipherment",
  "decipher only",
  "digital signature",
  "email protection",
  "encipher only",
  "ipsec end system",
  "ipsec tunnel",
  "ipsec user",
  "key agreement",
  "key encipherment",
  "microsoft sgc",
  "netscape sgc",
  "ocsp signing",
  "s/mime",
  "server auth",
  "signing",
  "timestamping",
];

export const CERTIFICATES_V1 = pkg("certificates/v1", "k8s.io.api.certificates.v1", {
  CertificateSigningRequest: t(
    "A request for an x509 certificate: the client submits a CSR naming a signer, an approver approves or denies it, and the signer then issues the certificate into the status.",
    {
      metadata: f(1, "meta/v1.ObjectMeta", "The object's metadata: name, labels, annotations and so on."),
      spec: f(
        2,
        "CertificateSigningRequestSpec",
        "The request itself; it cannot change once created, and only request, signerName, expirationSeconds and usages may be set by the client.",
        { ...required, omitEmpty: false },
      ),
      status: f(
        3,
        "CertificateSigningRequestStatus",
        "Whether the request was approved, denied or failed, and the issued certificate once there is one.",
      ),
    },
  ),
  CertificateSigningRequestCondition: t(
    "One state the request has reached, such as approval, denial or signer failure.",
    {
      type: f(
        1,
        "string",
        'The kind of state: "Approved" or "Denied" (set through the approval subresource, never both) or "Failed" (set by the signer). Each type appears at most once and cannot be removed.',
        { omitEmpty: false },
      ),
      status: f(
        6,
        "string",
        'Whether the condition holds: "True", "False" or "Unknown"; the well-known types must be "True".',
        { omitEmpty: false },
      ),
      reason: f(2, "string", "A short machine-oriented reason for the state."),
      message: f(3, "string", "Details about the state, for people to read."),
      lastUpdateTime: f(4, "time", "When this condition was last updated."),
      lastTransitionTime: f(
        5,
        "time",
        "When the condition last changed status; the server fills in the current time when it is left empty on a new or changed condition.",
      ),
    },
  ),
  CertificateSigningRequestSpec: t("What certificate is asked for, from which signer, and who asked.", {
    request: f(
      1,
      "bytes",
      'The PEM-encoded "CERTIFICATE REQUEST" block (PKCS#10), base64-encoded once more in JSON and YAML.',
      { ...required, ...atomic, omitEmpty: false },
    ),
    signerName: f(
      7,
      "string",
      "The qualified name of the signer that should issue the certificate; the signer decides trust distribution, allowed subjects and extensions, key usages, lifetime and whether CA certificates are allowed. List and watch can filter on it with a spec.signerName field selector.",
      { ...required, omitEmpty: false },
    ),
    expirationSeconds: f(
      8,
      "int32",
      "The validity period asked for, in seconds (at least 600). Signers may ignore it or clamp it, so check the issued certificate's own validity dates.",
      { pointer: true },
    ),
    usages: f(
      5,
      "[]string",
      'Key usages and extended key usages asked for in the certificate, for example "digital signature", "key encipherment" and "client auth" for a TLS client.',
      { ...atomic, enum: KEY_USAGES },
    ),
    username: f(
      2,
      "string",
      "Name of the user who created the request; set by the server at creation and immutable.",
    ),
    uid: f(
      3,
      "string",
      "UID of the user who created the request; set by the server at creation and immutable.",
    ),
    groups: f(
      4,
      "[]string",
      "Groups of the user who created the request; set by the server at creation and immutable.",
      atomic,
    ),
    extra: f(
      6,
      "{}ExtraValue",
      "Additional attributes of the user who created the request, by key; set by the server at creation and immutable.",
    ),
  }),
  CertificateSigningRequestStatus: t(
    "The outcome of a request: its conditions and, once signed, the certificate.",
    {
      conditions: f(
        1,
        "[]CertificateSigningRequestCondition",
        'The states the request has reached, keyed by type ("Approved", "Denied", "Failed").',
        mapList("type"),
      ),
      certificate: f(
        2,
        "bytes",
        'The issued certificate as one or more PEM "CERTIFICATE" blocks (base64-encoded once more in JSON and YAML). The first block is the leaf and any further ones are intermediates, unless the signer says otherwise. Set by the signer through the status subresource after approval, and immutable afterwards.',
        atomic,
      ),
    },
  ),
  ExtraValue: {
    ...t("A list of strings: the values of one extra user attribute.", {
      items: f(1, "[]string", "The attribute's values."),
    }),
    jsonAs: "[]string",
  },
});
