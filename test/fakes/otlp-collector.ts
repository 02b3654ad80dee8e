import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { gunzipSync } from "node:zlib";
import protobuf from "protobufjs";

/** One span as the stand-in collector received it, in the terms a test asserts on. */
export interface CollectedSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  kind: number;
  attributes: Record<string, unknown>;
  /** service.name of the resource that sent it. */
  serviceName?: string;
  /** Instrumentation scope (the tracer's name). */
  scope?: string;
  status: { code: number; message?: string };
  links: Array<{ traceId: string; spanId: string }>;
}

export interface CollectorRequest {
  path: string;
  contentType: string;
  encoding: "protobuf" | "json";
}

export interface OtlpCollector {
  /** The value for OTEL_EXPORTER_OTLP_ENDPOINT (exporters append /v1/traces). */
  url: string;
  requests: CollectorRequest[];
  spans(): CollectedSpan[];
  /** Resolves with all spans once `ready(spans)` holds; rejects after `timeoutMs`. */
  waitFor(ready: (spans: CollectedSpan[]) => boolean, timeoutMs?: number): Promise<CollectedSpan[]>;
  close(): Promise<void>;
}

// The part of opentelemetry-proto's trace service that tests read (field numbers as in the .proto files).
const OTLP_TRACE_PROTO = `
syntax = "proto3";
package otlp;
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; }
message Resource { repeated KeyValue attributes = 1; }
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; }
message InstrumentationScope { string name = 1; string version = 2; }
message Span {
  bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4; string name = 5;
  int32 kind = 6; fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8; repeated KeyValue attributes = 9;
  repeated Link links = 13; Status status = 15;
}
message Link { bytes trace_id = 1; bytes span_id = 2; }
message Status { string message = 2; int32 code = 3; }
message KeyValue { string key = 1; AnyValue value = 2; }
message AnyValue {
  oneof value {
    string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4;
    ArrayValue array_value = 5; KeyValueList kvlist_value = 6; bytes bytes_value = 7;
  }
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
`;

const requestType = protobuf.parse(OTLP_TRACE_PROTO).root.lookupType("otlp.ExportTraceServiceRequest");

/** A local stand-in for an OpenTelemetry collector: OTLP/HTTP on 127.0.0.1, protobuf and JSON encodings. */
export async function startOtlpCollector(): Promise<OtlpCollector> {
  const received: CollectedSpan[] = [];
  const requests: CollectorRequest[] = [];
  const sockets = new Set<Socket>();
  const waiters = new Set<() => void>();

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const contentType = req.headers["content-type"] ?? "";
      if (req.method !== "POST" || req.url !== "/v1/traces") {
        res.writeHead(404).end();
        return;
      }
      let body = Buffer.concat(chunks);
      if (req.headers["content-encoding"] === "gzip") body = gunzipSync(body);
      const json = contentType.includes("json");
      try {
        received.push(...(json ? spansFromJson(JSON.parse(body.toString("utf8"))) : spansFromProtobuf(body)));
      } catch (error) {
        res.writeHead(400, { "content-type": "text/plain" }).end(error instanceof Error ? error.message : String(error));
        return;
      }
      requests.push({ path: req.url, contentType, encoding: json ? "json" : "protobuf" });
      for (const wake of [...waiters]) wake();
      // An empty ExportTraceServiceResponse means full success in either encoding.
      if (json) res.writeHead(200, { "content-type": "application/json" }).end("{}");
      else res.writeHead(200, { "content-type": "application/x-protobuf" }).end();
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    spans: () => [...received],
    waitFor: (ready, timeoutMs = 20_000) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          if (!ready(received)) return;
          finish();
          resolve([...received]);
        };
        const timer = setTimeout(() => {
          finish();
          reject(new Error(`collector: spans not complete within ${timeoutMs} ms; got ${received.map((s) => `${s.serviceName}:${s.name}`).join(", ")}`));
        }, timeoutMs);
        const finish = (): void => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      }),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function spansFromProtobuf(body: Buffer): CollectedSpan[] {
  const decoded = requestType.toObject(requestType.decode(body), { longs: Number, bytes: Array, defaults: false, oneofs: false });
  return spansFromRequest(decoded, (id) => (Array.isArray(id) ? Buffer.from(id as number[]).toString("hex") : ""));
}

/** OTLP/JSON spells trace and span ids as hex strings (not base64, unlike the protobuf JSON mapping). */
function spansFromJson(body: unknown): CollectedSpan[] {
  return spansFromRequest(body, (id) => (typeof id === "string" ? id.toLowerCase() : ""));
}

type IdReader = (id: unknown) => string;

function spansFromRequest(request: unknown, readId: IdReader): CollectedSpan[] {
  const spans: CollectedSpan[] = [];
  for (const resourceSpans of list(field(request, "resourceSpans"))) {
    const resource = attributesOf(field(field(resourceSpans, "resource"), "attributes"), readId);
    const serviceName = typeof resource["service.name"] === "string" ? resource["service.name"] : undefined;
    for (const scopeSpans of list(field(resourceSpans, "scopeSpans"))) {
      const scope = field(field(scopeSpans, "scope"), "name");
      for (const span of list(field(scopeSpans, "spans"))) {
        const parentSpanId = readId(field(span, "parentSpanId"));
        const status = field(span, "status");
        const statusMessage = field(status, "message");
        spans.push({
          name: String(field(span, "name") ?? ""),
          traceId: readId(field(span, "traceId")),
          spanId: readId(field(span, "spanId")),
          ...(parentSpanId === "" ? {} : { parentSpanId }),
          kind: Number(field(span, "kind") ?? 0),
          attributes: attributesOf(field(span, "attributes"), readId),
          ...(serviceName === undefined ? {} : { serviceName }),
          ...(typeof scope === "string" ? { scope } : {}),
          status: { code: Number(field(status, "code") ?? 0), ...(typeof statusMessage === "string" && statusMessage !== "" ? { message: statusMessage } : {}) },
          links: list(field(span, "links")).map((link) => ({ traceId: readId(field(link, "traceId")), spanId: readId(field(link, "spanId")) })),
        });
      }
    }
  }
  return spans;
}

function attributesOf(keyValues: unknown, readId: IdReader): Record<string, unknown> {
  const attributes: Record<string, unknown> = {};
  for (const keyValue of list(keyValues)) {
    const key = field(keyValue, "key");
    if (typeof key === "string") attributes[key] = valueOf(field(keyValue, "value"), readId);
  }
  return attributes;
}

function valueOf(anyValue: unknown, readId: IdReader): unknown {
  if (field(anyValue, "stringValue") !== undefined) return field(anyValue, "stringValue");
  if (field(anyValue, "boolValue") !== undefined) return field(anyValue, "boolValue");
  // OTLP/JSON may send 64-bit integers as strings.
  if (field(anyValue, "intValue") !== undefined) return Number(field(anyValue, "intValue"));
  if (field(anyValue, "doubleValue") !== undefined) return Number(field(anyValue, "doubleValue"));
  if (field(anyValue, "arrayValue") !== undefined) return list(field(field(anyValue, "arrayValue"), "values")).map((value) => valueOf(value, readId));
  if (field(anyValue, "kvlistValue") !== undefined) return attributesOf(field(field(anyValue, "kvlistValue"), "values"), readId);
  if (field(anyValue, "bytesValue") !== undefined) return readId(field(anyValue, "bytesValue"));
  return undefined;
}

function field(value: unknown, name: string): unknown {
  return typeof value === "object" && value !== null ? Reflect.get(value, name) : undefined;
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
