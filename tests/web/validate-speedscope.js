// Validate speedscope files against the JSON schema shipped in the
// speedscope npm package, with ajv.  Usage:
//   node validate-speedscope.js NODE_MODULES FILE...
// Prints "ok FILE" or "invalid FILE: errors" per file; exits 1 if any is
// invalid.
'use strict';
const path = require('path');
const fs = require('fs');
const nm = process.argv[2];
const Ajv = require(path.join(nm, 'ajv'));
const schema = JSON.parse(fs.readFileSync(
  path.join(nm, 'speedscope/dist/release/file-format-schema.json'), 'utf8'));
const ajv = new Ajv({ allErrors: true, strict: false });
const validate = ajv.compile(schema);
let bad = 0;
for (const f of process.argv.slice(3)) {
  const doc = JSON.parse(fs.readFileSync(f, 'utf8'));
  if (validate(doc)) {
    console.log('ok ' + f);
  } else {
    bad = 1;
    console.log('invalid ' + f + ': ' + ajv.errorsText(validate.errors).slice(0, 300));
  }
}
process.exit(bad);
