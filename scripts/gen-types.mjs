#!/usr/bin/env node
// Generates the page's TypeScript types from the JSON Schemas the Rust core derives
// (schemars), so the page cannot drift from the core:
//
//   schema/report.schema.json   -> web/src/generated/report.ts
//   schema/query.schema.json    -> web/src/generated/query.ts
//   schema/compare.schema.json  -> web/src/generated/compare.ts
//   schema/protocol.schema.json -> web/src/generated/protocol.ts
//
//   node scripts/gen-types.mjs           write the files
//   node scripts/gen-types.mjs --check   exit 1 (and say which) when a file is stale
//
// It handles the subset of JSON Schema that schemars emits for these types: objects with
// properties/required, arrays, $ref into $defs, string enums (oneOf/anyOf of consts, or
// enum), maps (additionalProperties without properties), anyOf with null and "type": [T, "null"] (nullable), integers/numbers/strings/
// booleans. Anything else is an error, not a silent `any`. A definition of the query
// schema that is identical to the report schema's is re-exported from ./report.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export const OUTPUTS = [
  { schema: 'schema/report.schema.json', out: 'web/src/generated/report.ts', flag: '' },
  { schema: 'schema/query.schema.json', out: 'web/src/generated/query.ts', flag: ' --queries', share: [['schema/report.schema.json', './report']] },
  { schema: 'schema/compare.schema.json', out: 'web/src/generated/compare.ts', flag: ' --compare', share: [['schema/report.schema.json', './report']] },
  {
    schema: 'schema/protocol.schema.json',
    out: 'web/src/generated/protocol.ts',
    flag: ' --protocol',
    share: [['schema/report.schema.json', './report'], ['schema/query.schema.json', './query']],
  },
];

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function fail(where, message) {
  throw new Error(`gen-types: ${where}: ${message}`);
}

function comment(description, indent) {
  if (!description) return '';
  // Rustdoc links [`X`] read fine as `X`; "*/" must not end the comment early.
  const text = description.replace(/\[`([^`]+)`\]/g, '`$1`').replace(/\*\//g, '*\\/');
  const lines = text.split('\n');
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((l) => `${indent} *${l ? ` ${l}` : ''}`).join('\n')}\n${indent} */\n`;
}

function refName(ref, where) {
  const m = /^#\/\$defs\/(.+)$/.exec(ref);
  if (!m || !IDENT.test(m[1])) fail(where, `unsupported $ref ${ref}`);
  return m[1];
}

function literal(value, where) {
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') fail(where, `unsupported const ${JSON.stringify(value)}`);
  return JSON.stringify(value);
}

/** The TypeScript type of schema `s` (a type expression; objects inline). */
function typeOf(s, where, indent) {
  if (s === true || (typeof s === 'object' && s !== null && Object.keys(s).length === 0)) return 'unknown';
  if (typeof s !== 'object' || s === null) fail(where, `unsupported schema ${JSON.stringify(s)}`);
  if (s.$ref) return refName(s.$ref, where);
  if ('const' in s) return literal(s.const, where);
  if (Array.isArray(s.enum)) return s.enum.map((v) => literal(v, where)).join(' | ');
  const alternatives = s.anyOf ?? s.oneOf;
  if (Array.isArray(alternatives)) {
    const parts = alternatives.map((a, i) => typeOf(a, `${where}[${i}]`, indent));
    return [...new Set(parts)].join(' | ');
  }
  if (Array.isArray(s.type)) {
    const parts = s.type.map((t) => typeOf({ ...s, type: t }, where, indent));
    return [...new Set(parts)].join(' | ');
  }
  switch (s.type) {
    case 'null':
      return 'null';
    case 'boolean':
      return 'boolean';
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'array': {
      if (!s.items) fail(where, 'array without items');
      const item = typeOf(s.items, `${where}.items`, indent);
      return /^[A-Za-z0-9_$]+$/.test(item) ? `${item}[]` : `Array<${item}>`;
    }
    case 'object':
      // A map (`BTreeMap<String, T>`): no properties, values of one schema.
      if (!s.properties && s.additionalProperties && s.additionalProperties !== true) {
        return `Record<string, ${typeOf(s.additionalProperties, `${where}.values`, indent)}>`;
      }
      return objectBody(s, where, indent);
    default:
      fail(where, `unsupported type ${JSON.stringify(s.type)}`);
  }
  return 'never';
}

function objectBody(s, where, indent) {
  const props = s.properties ?? {};
  const required = new Set(s.required ?? []);
  const inner = `${indent}  `;
  let body = '{\n';
  for (const [name, p] of Object.entries(props)) {
    if (!IDENT.test(name)) fail(where, `property name ${JSON.stringify(name)}`);
    body += comment(p.description, inner);
    body += `${inner}${name}${required.has(name) ? '' : '?'}: ${typeOf(p, `${where}.${name}`, inner)};\n`;
  }
  if (s.additionalProperties && s.additionalProperties !== false) fail(where, 'additionalProperties schemas are not supported');
  return `${body}${indent}}`;
}

function declaration(name, s, where) {
  let out = comment(s.description, '');
  if (s.type === 'object' && !s.anyOf && !s.oneOf) {
    out += `export interface ${name} ${objectBody(s, where, '')}\n`;
  } else {
    out += `export type ${name} = ${typeOf(s, where, '')};\n`;
  }
  return out;
}

function readSchema(rel) {
  return JSON.parse(fs.readFileSync(path.join(REPO, rel), 'utf8'));
}

/** The generated TypeScript for one schema. A definition identical to one of a schema it
 * shares with (the first that has it) is re-exported from that schema's module. */
export function generate({ schema: rel, flag, share = [] }) {
  const schema = readSchema(rel);
  const title = schema.title;
  if (!title || !IDENT.test(title)) fail(rel, 'the root schema needs a title that is an identifier');
  const defs = schema.$defs ?? {};
  const sharedDefs = share.map(([other, from]) => [readSchema(other).$defs ?? {}, from]);
  const from = new Map();
  for (const d of Object.keys(defs)) {
    const hit = sharedDefs.find(([o]) => o[d] && JSON.stringify(o[d]) === JSON.stringify(defs[d]));
    if (hit) from.set(d, hit[1]);
  }
  const reexported = [...from.keys()].sort();
  let out = `// GENERATED by scripts/gen-types.mjs from ${rel} — do not edit.\n`;
  out += `// The Rust types are the source of truth: change them, run \`heapscope schema${flag}\`\n`;
  out += `// into the schema file, then \`node scripts/gen-types.mjs\`. A test fails when this is stale.\n\n`;
  for (const [, module] of share) {
    const names = reexported.filter((d) => from.get(d) === module);
    if (names.length) {
      out += `import type { ${names.join(', ')} } from '${module}';\n`;
      out += `export type { ${names.join(', ')} };\n`;
    }
  }
  if (reexported.length) out += '\n';
  const { $defs: _defs, $schema: _s, title: _t, ...root } = schema;
  out += declaration(title, root, `${rel}#`);
  for (const name of Object.keys(defs).sort()) {
    if (reexported.includes(name)) continue;
    if (!IDENT.test(name)) fail(rel, `definition name ${JSON.stringify(name)}`);
    // schemars numbers a second Rust type of the same name (ObjectKind2): give it its own name.
    const base = /^(.*\D)\d+$/.exec(name)?.[1];
    if (base && defs[base]) fail(rel, `two Rust types are named ${base} (${name}): rename one`);
    out += `\n${declaration(name, defs[name], `${rel}#/$defs/${name}`)}`;
  }
  return out;
}

function main() {
  const check = process.argv.includes('--check');
  let stale = 0;
  for (const o of OUTPUTS) {
    const text = generate(o);
    const file = path.join(REPO, o.out);
    const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null;
    if (check) {
      if (current !== text) {
        stale++;
        console.error(`gen-types: ${o.out} is stale: run node scripts/gen-types.mjs (it is generated from ${o.schema})`);
      }
    } else if (current !== text) {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, text);
      console.log(`gen-types: wrote ${o.out}`);
    }
  }
  if (stale) process.exit(1);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
