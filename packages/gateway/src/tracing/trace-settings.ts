/** The OTLP/HTTP encodings this gateway can export in (OTEL_EXPORTER_OTLP_PROTOCOL). */
export type OtlpHttpProtocol = "http/protobuf" | "http/json";

export type TraceSettings =
  | { enabled: false; warning?: string }
  | { enabled: true; protocol: OtlpHttpProtocol; serviceName: string };

const DEFAULT_PROTOCOL: OtlpHttpProtocol = "http/protobuf";

/**
 * Reads the standard OTEL_* variables that decide whether and how traces leave the process. Everything else the
 * exporters read themselves (headers, timeout, compression, the endpoint's exact URL).
 */
export function traceSettingsFrom(env: Record<string, string | undefined>, defaultServiceName: string): TraceSettings {
  const endpoint = nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) ?? nonEmpty(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  if (endpoint === undefined) return { enabled: false };
  if (isTrue(env.OTEL_SDK_DISABLED)) return { enabled: false };
  const exporter = nonEmpty(env.OTEL_TRACES_EXPORTER);
  if (exporter !== undefined && exporter.split(",").map((name) => name.trim()).includes("none")) return { enabled: false };
  const protocol = (nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL) ?? nonEmpty(env.OTEL_EXPORTER_OTLP_PROTOCOL) ?? DEFAULT_PROTOCOL).toLowerCase();
  if (protocol !== "http/protobuf" && protocol !== "http/json") {
    return {
      enabled: false,
      warning: `OTEL_EXPORTER_OTLP_PROTOCOL "${protocol}" is not supported (use http/protobuf or http/json); traces are not exported`,
    };
  }
  return { enabled: true, protocol, serviceName: nonEmpty(env.OTEL_SERVICE_NAME) ?? defaultServiceName };
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === "" ? undefined : trimmed;
}

function isTrue(value: string | undefined): boolean {
  return value?.trim().toLowerCase() === "true";
}
