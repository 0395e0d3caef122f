// check.mjs - type and unknown-field checks of core Kubernetes objects.
//
// stdin:  a JSON array of objects (each with apiVersion and kind).
// stdout: a JSON array, one entry per object: a list of messages (empty =
//         the object is valid).
//
// Types: the validator the npm package kubernetes-models generates from the
// Kubernetes OpenAPI definitions (Model.prototype.validate; ajv, all errors).
// Unknown fields: those validators accept any extra key (the OpenAPI
// definitions do not set additionalProperties: false), while the API
// server's strict field validation (kubectl --validate=strict) rejects it.
// So the object is validated through a transparent Proxy that records, per
// object node, which property names the generated validator reads (every
// property the schema declares is read, present or not) and whether it
// enumerates the keys (only maps - labels, data, ResourceQuota hard - are
// enumerated).  A key of a non-map node that the schema never read is not
// in the schema: an unknown field.
// One gap of the generated validators: a property whose schema is empty is
// compiled away, and the generator drops properties named "description"
// (the JSON Schema keyword), e.g. PriorityClass.description.  The object's
// own top-level properties are therefore also taken from the model's
// TypeScript declaration (Kind.d.ts); below the top level the only such
// properties are in apiextensions.k8s.io (CRDs), which gpuplan never emits.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import process from "node:process";

const require = createRequire(import.meta.url);

function declaredTop(apiVersion, kind) {
  try {
    const js = require.resolve(`kubernetes-models/${apiVersion}/${kind}`);
    const dts = readFileSync(js.replace(/\.js$/, ".d.ts"), "utf8");
    const m = dts.match(/export interface I\w+[^{]*\{([\s\S]*?)\n\}/);
    return m ? [...m[1].matchAll(/^    "([^"]+)"\??:/gm)].map((x) => x[1]) : [];
  } catch (e) {
    return [];
  }
}

async function model(apiVersion, kind) {
  if (typeof apiVersion !== "string" || typeof kind !== "string" ||
      !/^[a-z0-9.]*\/?v[0-9a-z]+$/.test(apiVersion) || !/^[A-Za-z0-9]+$/.test(kind)) {
    return null;
  }
  try {
    const mod = await import(`kubernetes-models/${apiVersion}/${kind}`);
    return mod[kind] || null;
  } catch (e) {
    return null;
  }
}

// A Proxy per object/array node; seen.get(node) = {read: Set, enumerated}.
function watch(node, seen) {
  const cache = new Map();
  const wrap = (v) => {
    if (v === null || typeof v !== "object") return v;
    if (!cache.has(v)) {
      const rec = { read: new Set(), enumerated: false };
      seen.set(v, rec);
      cache.set(v, new Proxy(v, {
        get(t, k) {
          if (typeof k === "string") rec.read.add(k);
          return wrap(Reflect.get(t, k));
        },
        has(t, k) {
          if (typeof k === "string") rec.read.add(k);
          return Reflect.has(t, k);
        },
        ownKeys(t) {
          rec.enumerated = true;
          return Reflect.ownKeys(t);
        },
      }));
    }
    return cache.get(v);
  };
  return wrap(node);
}

function unknownFields(node, path, seen, out) {
  if (node === null || typeof node !== "object") return;
  const rec = seen.get(node);
  if (Array.isArray(node)) {
    node.forEach((v, i) => unknownFields(v, `${path}[${i}]`, seen, out));
    return;
  }
  for (const k of Object.keys(node)) {
    const p = path ? `${path}.${k}` : k;
    if (rec && !rec.enumerated && !rec.read.has(k)) {
      out.push(`${p}: unknown field "${k}"`);
      continue;
    }
    unknownFields(node[k], p, seen, out);
  }
}

async function check(doc) {
  const out = [];
  if (doc === null || typeof doc !== "object" || Array.isArray(doc)) {
    return ["not an object"];
  }
  const Cls = await model(doc.apiVersion, doc.kind);
  if (!Cls) {
    return [`kubernetes-models has no model for ${doc.apiVersion} ${doc.kind}`];
  }
  const seen = new Map();
  try {
    Cls.prototype.validate.call(watch(doc, seen));
  } catch (e) {
    if (Array.isArray(e.errors) && e.errors.length) {
      for (const er of e.errors) {
        const where = er.instancePath ? er.instancePath.slice(1).replace(/\//g, ".") : "(root)";
        out.push(`${where}: ${er.message || er.keyword} ${JSON.stringify(er.params || {})}`);
      }
    } else {
      out.push(String(e && e.message ? e.message : e));
    }
  }
  const top = seen.get(doc);
  if (top) for (const k of declaredTop(doc.apiVersion, doc.kind)) top.read.add(k);
  unknownFields(doc, "", seen, out);
  return out;
}

let text = "";
process.stdin.setEncoding("utf8");
for await (const chunk of process.stdin) text += chunk;
const docs = JSON.parse(text);
const results = [];
for (const d of docs) results.push(await check(d));
process.stdout.write(JSON.stringify(results) + "\n");
