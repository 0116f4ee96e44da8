{{/* Chart name, or nameOverride. */}}
{{- define "zvm-operator.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Object names: fullnameOverride, else the release name when it already holds the chart name, else release-chart. */}}
{{- define "zvm-operator.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "zvm-operator.selectorLabels" -}}
app.kubernetes.io/name: {{ include "zvm-operator.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "zvm-operator.labels" -}}
{{ include "zvm-operator.selectorLabels" . }}
app.kubernetes.io/part-of: zvm-operator
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{- define "zvm-operator.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "zvm-operator.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "zvm-operator.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{- define "zvm-operator.restTokenSecretName" -}}
{{- default (printf "%s-rest-token" (include "zvm-operator.fullname" .)) .Values.rest.adminToken.existingSecret -}}
{{- end -}}

{{/* The plural of every kind whose CRD the chart ships: RBAC covers exactly the chart's CRDs. */}}
{{- define "zvm-operator.plurals" -}}
{{- $plurals := list -}}
{{- range $path, $_ := .Files.Glob "crds/*.yaml" -}}
{{- $crd := $.Files.Get $path | fromYaml -}}
{{- $plurals = append $plurals $crd.spec.names.plural -}}
{{- end -}}
{{- toJson (sortAlpha $plurals) -}}
{{- end -}}

{{/* Kinds the REST sidecar creates and deletes (keep in step with test/chart/sources.ts REST_WRITTEN_KINDS). */}}
{{- define "zvm-operator.restPlurals" -}}
{{- toJson (list "zfcptemplates" "zguests" "zimages" "zvolumes" "zvswitches") -}}
{{- end -}}

{{/* Kinds the REST sidecar only creates (REST_CREATED_KINDS). */}}
{{- define "zvm-operator.restCreatePlurals" -}}
{{- toJson (list "zguestactions") -}}
{{- end -}}

{{/* Kinds the controller deletes itself: finished ZGuestActions, a pool's guests (keep in step with CONTROLLER_DELETED_KINDS). */}}
{{- define "zvm-operator.controllerDeletePlurals" -}}
{{- toJson (list "zguestactions" "zguests") -}}
{{- end -}}

{{/* Kinds the controller creates itself: a pool's guests (keep in step with CONTROLLER_CREATED_KINDS). */}}
{{- define "zvm-operator.controllerCreatePlurals" -}}
{{- toJson (list "zguests") -}}
{{- end -}}

{{/* REST in its own Deployment (rest.separateDeployment): its own ServiceAccount, no Secret access. */}}
{{- define "zvm-operator.restSeparate" -}}
{{- if and .Values.rest.enabled .Values.rest.separateDeployment -}}true{{- end -}}
{{- end -}}

{{- define "zvm-operator.restServiceAccountName" -}}
{{- printf "%s-rest" (include "zvm-operator.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Labels of the separate REST pods: another name, so that neither Deployment selects the other's pods. */}}
{{- define "zvm-operator.restSelectorLabels" -}}
app.kubernetes.io/name: {{ include "zvm-operator.name" . }}-rest
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* Where simulated ZHosts keep their state (subPath sim-state of the images volume): the REST container
answers live reads from what the controller's simulator wrote, in the same pod or through a shared imageVolume. */}}
{{- define "zvm-operator.simStateDir" -}}/var/lib/zvm-operator/sim{{- end -}}

{{/* The affinity of a Deployment's pods (dict: root, replicas, labels): `affinity` when set, else with
several replicas a preferred anti-affinity by hostname among the pods of that Deployment. */}}
{{- define "zvm-operator.affinity" -}}
{{- if .root.Values.affinity }}
affinity:
  {{- toYaml .root.Values.affinity | nindent 2 }}
{{- else if and (gt (int .replicas) 1) (eq .root.Values.highAvailability.podAntiAffinity "soft") }}
affinity:
  podAntiAffinity:
    preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 100
        podAffinityTerm:
          topologyKey: kubernetes.io/hostname
          labelSelector:
            matchLabels:
              {{- .labels | nindent 14 }}
{{- end }}
{{- end -}}
