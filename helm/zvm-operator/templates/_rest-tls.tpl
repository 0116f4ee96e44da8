{{/* REST over HTTPS (rest.tls; SECURITY.md "Ports"): the Secret, the rest container's args, mounts, volumes and probes. */}}

{{/* The Secret REST serves HTTPS with: rest.tls.secretName, or the one the cert-manager Certificate writes; empty: plain HTTP. */}}
{{- define "zvm-operator.restTlsSecret" -}}
{{- if .Values.rest.tls.secretName -}}
{{- .Values.rest.tls.secretName -}}
{{- else if .Values.rest.tls.certManager.issuer -}}
{{- printf "%s-rest-tls" (include "zvm-operator.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* The Service clients reach REST through (the separate Deployment has its own). */}}
{{- define "zvm-operator.restServiceName" -}}
{{- if include "zvm-operator.restSeparate" . -}}
{{- printf "%s-rest" (include "zvm-operator.fullname" .) -}}
{{- else -}}
{{- include "zvm-operator.fullname" . -}}
{{- end -}}
{{- end -}}

{{/* Args after the rest container's own: HTTPS from the mounted Secret (re-read when it changes), or plain HTTP on purpose. */}}
{{- define "zvm-operator.restTlsArgs" -}}
{{- if include "zvm-operator.restTlsSecret" . }}
- --tls-cert=/etc/zvm-operator/tls/tls.crt
- --tls-key=/etc/zvm-operator/tls/tls.key
{{- if .Values.rest.tls.clientCaSecret }}
- --tls-client-ca=/etc/zvm-operator/client-ca/ca.crt
{{- end }}
{{- else if .Values.rest.tls.insecurePlainHttp }}
- --insecure-plain-http
{{- end }}
{{- end -}}

{{/* Whole-Secret mounts (never subPath: the kubelet only refreshes those), so a rotation reaches the files. */}}
{{- define "zvm-operator.restTlsVolumeMounts" -}}
{{- if include "zvm-operator.restTlsSecret" . }}
- name: rest-tls
  mountPath: /etc/zvm-operator/tls
  readOnly: true
{{- if .Values.rest.tls.clientCaSecret }}
- name: rest-client-ca
  mountPath: /etc/zvm-operator/client-ca
  readOnly: true
{{- end }}
{{- end }}
{{- end -}}

{{- define "zvm-operator.restTlsVolumes" -}}
{{- with include "zvm-operator.restTlsSecret" . }}
- name: rest-tls
  secret:
    secretName: {{ . }}
    defaultMode: 288 # 0440
{{- if $.Values.rest.tls.clientCaSecret }}
- name: rest-client-ca
  secret:
    secretName: {{ $.Values.rest.tls.clientCaSecret }}
    items:
      - key: {{ $.Values.rest.tls.clientCaKey }}
        path: ca.crt
{{- end }}
{{- end }}
{{- end -}}

{{- define "zvm-operator.restProbes" -}}
{{- /* GET / needs a token when auth is on (as the reference's): the probes use the open /healthz and /readyz of rest-metrics */ -}}
livenessProbe:
  httpGet:
    path: /healthz
    port: rest-metrics
    scheme: HTTP
  initialDelaySeconds: 10
  periodSeconds: 20
readinessProbe:
  httpGet:
    path: /readyz
    port: rest-metrics
    scheme: HTTP
  periodSeconds: 10
{{- end -}}
