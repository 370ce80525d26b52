// npm run stripe-schema: derives test/contract/stripe.schema.json, a JSON Schema of the Stripe
// objects named in test/contract/stripe-types.ts, from the installed stripe SDK's type
// declarations (which Stripe generates from its OpenAPI description of the SDK's pinned API
// version). Run it after upgrading the SDK, and commit the result: the likeness test then checks
// the simulator against the new version.
//
// The SDK widens each enum with `OtherString` (`'hosted_page' | ... | OtherString`, which is any
// string) so that an integration copes with values newer than the SDK; a schema that kept it would
// accept any string. Here OtherString is never, so each enum keeps only the values the pinned
// version names: a simulator sending another value fails. The SDK's `Decimal` (a class it makes
// of a decimal string) is the string it is on the wire.
import { readFileSync, writeFileSync } from 'node:fs';
import ts from 'typescript';
import {
  createFormatter,
  createParser,
  createProgram,
  ExposeNodeParser,
  NeverType,
  SchemaGenerator,
  StringType,
} from 'ts-json-schema-generator';

const OUTPUT = 'test/contract/stripe.schema.json';
const config = {
  path: 'test/contract/stripe-types.ts',
  tsconfig: 'tsconfig.json',
  type: '*',
  expose: 'export',
  topRef: true,
  jsDoc: 'none',
  skipTypeCheck: true,
  additionalProperties: false,
  functions: 'hide',
};

/** `OtherString` (stripe's `string & Record<never, never>`) becomes never: unions drop it. */
const otherString = {
  supportsNode: (node) =>
    ts.isTypeReferenceNode(node) && node.typeName.getText().endsWith('OtherString'),
  createType: () => new NeverType(),
};

// The SDK declares the same name in several modules (`Card` in Cards.d.ts and in Issuing/Cards.d.ts):
// each definition is named after its module as well, `Issuing.Cards.Card`, so none collides.
const qualifiedName = ExposeNodeParser.prototype.getDefinitionName;
ExposeNodeParser.prototype.getDefinitionName = function (node, context) {
  const name = qualifiedName.call(this, node, context);
  const file = node.getSourceFile().fileName;
  const module = /node_modules\/stripe\/(?:esm|cjs|types)\/(?:resources\/)?(.+)\.d\.ts$/.exec(
    file,
  )?.[1];
  return module === undefined ? name : `${module.replaceAll('/', '.')}.${name}`;
};

/** `Decimal` (the SDK's class for a `decimal_string` field) is a string on the wire, e.g. "1500". */
const decimalString = {
  supportsNode: (node) => ts.isTypeReferenceNode(node) && node.typeName.getText() === 'Decimal',
  createType: () => new StringType(),
};

const program = createProgram(config);
const parser = createParser(program, config, (parsers) =>
  parsers.addNodeParser(otherString).addNodeParser(decimalString),
);
const generator = new SchemaGenerator(program, parser, createFormatter(config), config);
const schema = generator.createSchema(config.type);
const sdk = JSON.parse(readFileSync('node_modules/stripe/package.json', 'utf8')).version;
const apiVersion = /ApiVersion = '([^']+)'/.exec(
  readFileSync('node_modules/stripe/cjs/apiVersion.js', 'utf8'),
)[1];
schema.$comment = `Derived by npm run stripe-schema from the type declarations of stripe ${sdk} (API version ${apiVersion}); do not edit.`;
writeFileSync(OUTPUT, `${JSON.stringify(schema, null, 1)}\n`);
console.log(
  `${OUTPUT}: ${Object.keys(schema.definitions).length} definitions, stripe ${sdk}, ${apiVersion}`,
);
