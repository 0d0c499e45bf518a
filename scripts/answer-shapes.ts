/**
 * Writes src/models/answers-shapes.ts, the shapes the client checks answers against
 * (src/models/answers-check.ts), from the zod answer models (src/models/answers.ts): the models
 * stay the one statement of what an answer holds, and the client ships no zod.
 *
 *     node --import tsx scripts/answer-shapes.ts          # write it
 *     node --import tsx scripts/answer-shapes.ts --check  # exit 1 when the committed file is stale
 *
 * test/client/answer-shapes.test.ts fails when the file is stale, and checks that the shapes
 * accept exactly what the models accept. A zod construct the shapes cannot state (a check on a
 * string, a strict object, a union) stops the script with the model and the path: state it in
 * src/models/answers-check.ts first.
 * @module
 */
import { readFile, writeFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import type * as z from 'zod/mini';
import { ANSWER_MODELS } from '../src/models/answers.js';
import { openEnumValues } from '../src/models/common.js';

/** The generated file, from the repository root. */
export const SHAPES_PATH = 'src/models/answers-shapes.ts';
/** The command that regenerates it. */
export const SHAPES_COMMAND = 'node --import tsx scripts/answer-shapes.ts';

const ROOT = new URL('../', import.meta.url);

type Def = {
  type: string;
  checks?: unknown[];
  innerType?: z.core.$ZodType;
  element?: z.core.$ZodType;
  shape?: Record<string, z.core.$ZodType>;
  catchall?: z.core.$ZodType;
  keyType?: z.core.$ZodType;
  valueType?: z.core.$ZodType;
  values?: unknown[];
  entries?: Record<string, unknown>;
};

// The TypeScript type of each model (its type of the same name; a page: the envelope of its item).
function typeOf(name: string): string {
  return name.endsWith('List') ? `ListEnvelope<M.${name.slice(0, -'List'.length)}>` : `M.${name}`;
}

/** The text of src/models/answers-shapes.ts. */
export function renderShapes(): string {
  const models = Object.entries(ANSWER_MODELS) as Array<[string, z.core.$ZodType]>;
  const names = new Map<z.core.$ZodType, string>(models.map(([name, schema]) => [schema as z.core.$ZodType, name]));
  const lists = new Map<string, string>(); // JSON of a value list -> its constant
  const constants: string[] = [];
  const declared = new Set<string>();
  const statements: string[] = [];

  function valueList(values: readonly unknown[]): string {
    const text = JSON.stringify(values);
    let constant = lists.get(text);
    if (constant === undefined) {
      constant = `V${lists.size}`;
      lists.set(text, constant);
      constants.push(`const ${constant} = ${text.replaceAll(',', ', ')} as const;`);
    }
    return constant;
  }

  function shapeOf(schema: z.core.$ZodType, where: string, top: boolean): string {
    const named = names.get(schema);
    if (named !== undefined && !top) {
      declare(named);
      return named;
    }
    const values = openEnumValues(schema);
    if (values !== undefined) return `[OPEN, ${valueList(values)}]`;
    const def = schema._zod.def as unknown as Def;
    const unsupported = (what: string): never => {
      throw new Error(`${where}: ${what} cannot be stated as an answer shape (src/models/answers-check.ts)`);
    };
    if ((def.checks?.length ?? 0) > 0) unsupported(`a ${def.type} with checks`);
    switch (def.type) {
      case 'string':
        return "'s'";
      case 'number':
        return "'n'";
      case 'boolean':
        return "'b'";
      case 'nullable': {
        const inner = shapeOf(def.innerType as z.core.$ZodType, where, false);
        return /^'[snbo]'$/.test(inner) ? inner.toUpperCase() : `[NULLABLE, ${inner}]`;
      }
      case 'optional':
        return `[OPTIONAL, ${shapeOf(def.innerType as z.core.$ZodType, where, false)}]`;
      case 'array':
        return `[ARRAY, ${shapeOf(def.element as z.core.$ZodType, `${where}[]`, false)}]`;
      case 'record':
        if ((def.keyType as z.core.$ZodType)._zod.def.type !== 'string' || (def.valueType as z.core.$ZodType)._zod.def.type !== 'unknown') unsupported('a record of other than strings to unknown');
        return "'o'";
      case 'literal':
        return `[ONE_OF, ${valueList(def.values as unknown[])}]`;
      case 'enum':
        return `[ONE_OF, ${valueList(Object.values(def.entries as Record<string, unknown>))}]`;
      case 'object': {
        if (def.catchall?._zod.def.type !== 'unknown') unsupported('an object that refuses unknown fields');
        const fields = Object.entries(def.shape as Record<string, z.core.$ZodType>);
        if (fields.length === 0) return "'o'";
        const indent = '  ';
        const body = fields.map(([key, field]) => `${indent}${/^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key)}: ${shapeOf(field, `${where}.${key}`, false).replaceAll('\n', `\n${indent}`)},`);
        return `{\n${body.join('\n')}\n}`;
      }
      default:
        return unsupported(`a ${def.type}`);
    }
  }

  function declare(name: string): void {
    if (declared.has(name)) return;
    declared.add(name);
    const schema = models.find(([n]) => n === name)?.[1] as z.core.$ZodType;
    const shape = shapeOf(schema, name, true);
    statements.push(`export const ${name}: AnswerShape<${typeOf(name)}> = ${shape};`);
  }

  for (const [name] of models) declare(name);

  return [
    '// Generated from src/models/answers.ts by scripts/answer-shapes.ts. Do not edit: run',
    `// \`${SHAPES_COMMAND}\` (npm test fails when this file is stale).`,
    '/**',
    ' * The shape of every answer the client reads, by model name (pages of a listing: `<Model>List`),',
    ' * checked by ./answers-check.ts. Generated from the zod answer models (./answers.ts).',
    ' * @module',
    ' */',
    "import type * as M from './index.js';",
    "import type { ListEnvelope } from './common.js';",
    "import { ARRAY, NULLABLE, ONE_OF, OPEN, OPTIONAL, type AnswerShape } from './answers-check.js';",
    '',
    ...constants,
    '',
    ...statements.flatMap((s) => [s, '']),
  ]
    .join('\n')
    .replace(/\n+$/, '\n');
}

async function main(args: readonly string[]): Promise<number> {
  const unknown = args.filter((a) => a !== '--check');
  if (unknown.length > 0) {
    process.stderr.write(`Unknown argument ${unknown.join(' ')}. Usage: ${SHAPES_COMMAND} [--check]\n`);
    return 2;
  }
  const file = new URL(SHAPES_PATH, ROOT);
  const content = renderShapes();
  const before = await readFile(file, 'utf8').catch(() => null);
  if (before === content) {
    process.stdout.write(`${SHAPES_PATH} is up to date.\n`);
    return 0;
  }
  if (args.includes('--check')) {
    process.stderr.write(`${SHAPES_PATH} is stale: run \`${SHAPES_COMMAND}\` and commit the result.\n`);
    return 1;
  }
  await writeFile(file, content);
  process.stdout.write(`wrote ${SHAPES_PATH}\n`);
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).then(
    (code) => (process.exitCode = code),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
