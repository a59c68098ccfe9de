// Generates src/lib/api/schema.d.ts, the UI's API types, from src/lib/api/openapi.json (the committed snapshot of
// the server's OpenAPI document; scripts/openapi-types refreshes it) with openapi-typescript, as its CLI would.
// Writes only when the types changed: build.rs watches ui/src, so rewriting the file on every UI build would
// make cargo re-run build.rs, and recompile the crate, on the next build.
import { readFileSync, writeFileSync } from 'node:fs';
import openapiTS, { COMMENT_HEADER, astToString } from 'openapi-typescript';

const input = new URL('../src/lib/api/openapi.json', import.meta.url);
const output = new URL('../src/lib/api/schema.d.ts', import.meta.url);

const types = COMMENT_HEADER + astToString(await openapiTS(input, { silent: true }));
let current = null;
try {
  current = readFileSync(output, 'utf8');
} catch {
  // Not generated yet.
}
if (current !== types) writeFileSync(output, types);
