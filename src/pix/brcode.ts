/**
 * BR Code: the EMV QRCPS-MPM payload of a Pix QR code and its "copia e cola" text, as the Banco
 * Central's Manual do BR Code and Manual de Padrões para Iniciação do Pix define it. Read it
 * leniently ({@link parseBrCode}), check it strictly ({@link validateBrCode}), write it
 * ({@link buildBrCode}).
 * @module
 */
import { crc16 } from './crc.js';
import { isValidTxid } from './identifiers.js';
import { KEY_TYPES, canonicalPixKey } from './keys.js';

/**
 * What is wrong with a BR Code: the `reason` of every {@link BrCodeIssue} and of
 * {@link BrCodeError}, for a program to branch on.
 */
export type BrCodeReason =
  /** The text is empty. */
  | 'empty'
  /** Whitespace before or after the code (a copy-paste artefact; the reader trims it). */
  | 'whitespace'
  /** Longer than the 512 characters of an EMV payload. */
  | 'too_long'
  /** An ID-length-value field cannot be read: the id or length is not two digits, or the value runs past the end. */
  | 'malformed'
  /** A field of length `00`: a value has 1 to 99 characters. */
  | 'empty_field'
  /** A character outside printable ASCII (accented names are the usual case). */
  | 'invalid_characters'
  /** The same field twice. */
  | 'duplicate_field'
  /** `00` is not the first field or `63` not the last. */
  | 'field_order'
  /** A mandatory field is absent (`field` names it). */
  | 'missing_field'
  /** Field `00` is not `01`. */
  | 'invalid_payload_format'
  /** Field `01` is neither `11` (reusable) nor `12` (single use). */
  | 'invalid_point_of_initiation'
  /** No merchant account template (26 to 51) with the GUI `br.gov.bcb.pix`. */
  | 'missing_pix_account'
  /** The GUI is not written `br.gov.bcb.pix` in lower case. */
  | 'invalid_gui'
  /** The Pix template has both a key (`01`) and a URL (`25`), or neither. */
  | 'invalid_pix_account'
  /** The key in `26-01` is not a Pix key as the DICT stores it. */
  | 'invalid_pix_key'
  /** The URL in `26-25` is empty, has a scheme or spaces, or is longer than 77 characters. */
  | 'invalid_url'
  /** Field `52` is not four digits. */
  | 'invalid_merchant_category_code'
  /** Field `53` is not `986` (BRL). */
  | 'invalid_currency'
  /** Field `54` is not a positive amount such as `10`, `10.5` or `10.50` (at most 13 characters). */
  | 'invalid_amount'
  /** Field `58` is not `BR`. */
  | 'invalid_country'
  /** Field `59` is empty or longer than 25 characters. */
  | 'invalid_merchant_name'
  /** Field `60` is empty or longer than 15 characters. */
  | 'invalid_merchant_city'
  /** `62-05` is not `***` or a txid of the code's kind (static: up to 25 alphanumerics; dynamic: 26 to 35). */
  | 'invalid_txid'
  /** Field `63` is not four upper-case hexadecimal digits (lower case, or not zero-padded). */
  | 'invalid_crc_format'
  /** The CRC-16/CCITT-FALSE over everything up to and including `6304` differs from field `63`. */
  | 'crc_mismatch'
  /** {@link buildBrCode} only: a value longer than the 99 characters a field can hold. */
  | 'field_too_long';

/** One deviation from the manuals. */
export interface BrCodeIssue {
  /** What is wrong. */
  reason: BrCodeReason;
  /** For a developer's log: the field and the reason in words (`59: invalid merchant name`). */
  message: string;
  /** The field concerned, as `59` or `62-05`, when there is one. */
  field?: string;
}

/** One ID-length-value field; templates (26 to 51, 62, 80 to 99) carry their sub-fields. */
export interface BrCodeField {
  /** Two-digit id. */
  id: string;
  /** The value as written. */
  value: string;
  /** Sub-fields of a template, when they could be read. */
  fields?: BrCodeField[];
}

/** What every BR Code carries, whatever its kind. */
export interface BrCodeBase {
  /** Field `01` is `12`: the code must be paid once only. */
  singleUse: boolean;
  /** Free text for the payer (`26-02`), when present (static codes carry it). */
  description?: string;
  /** Merchant category code, field `52` (`0000` when not used). Empty when absent. */
  merchantCategoryCode: string;
  /** ISO 4217 numeric currency, field `53`: `986`. Empty when absent. */
  currency: string;
  /** Amount in reais with `.` as separator (field `54`); absent when the payer chooses it. */
  amount?: string;
  /** Field `58`: `BR`. Empty when absent. */
  countryCode: string;
  /** Receiver's name, field `59`. Empty when absent. */
  merchantName: string;
  /** Receiver's city, field `60`. Empty when absent. */
  merchantCity: string;
  /** Field `61`, when present. */
  postalCode?: string;
  /** `62-05`: the txid of a static code, or `***` when there is none. Empty when absent. */
  txid: string;
  /** Field `63` as written. Empty when absent. */
  crc: string;
  /** Every field as read, in order. */
  fields: BrCodeField[];
}

/** A static BR Code: the Pix key (`26-01`) is in the code. */
export interface StaticBrCode extends BrCodeBase {
  kind: 'static';
  /** The receiver's Pix key (`26-01`). */
  key: string;
  /** Not in a static code. */
  url?: never;
}

/** A dynamic BR Code: the paying bank fetches the charge at `url` (`26-25`). */
export interface DynamicBrCode extends BrCodeBase {
  kind: 'dynamic';
  /** The charge's location without scheme (`26-25`). */
  url: string;
  /** Not in a dynamic code. */
  key?: never;
}

/**
 * A valid BR Code, read ({@link validateBrCode}): narrow on `kind` to reach the key of a static
 * code or the URL of a dynamic one.
 *
 * @example
 * ```ts
 * const result = validateBrCode(text);
 * if (result.valid && result.brCode.kind === 'static') console.log(result.brCode.key); // a string
 * ```
 */
export type BrCode = StaticBrCode | DynamicBrCode;

/**
 * What {@link parseBrCode} read, as far as it goes: a code with warnings may lack its key and URL,
 * or hold both, so neither is narrowed by `kind` here (`kind` is `dynamic` when only a URL was
 * found). A code with no warning is a {@link BrCode}.
 */
export interface ParsedBrCode extends BrCodeBase {
  /** `static` unless only a URL (`26-25`) was found. */
  kind: BrCode['kind'];
  /** The Pix key (`26-01`), when found. */
  key?: string;
  /** The charge's location (`26-25`), when found. */
  url?: string;
}

/** The answer of {@link parseBrCode}. */
export interface BrCodeParseResult {
  /** What could be read; `null` when the text holds no field at all. */
  brCode: ParsedBrCode | null;
  /** Every deviation from the manuals, in the order found. */
  warnings: BrCodeIssue[];
}

/** The answer of {@link validateBrCode}. */
export type BrCodeValidation =
  | { valid: true; brCode: BrCode }
  | {
      valid: false;
      /** The first error's reason. */
      reason: BrCodeReason;
      /** Every error, in the order found. */
      errors: BrCodeIssue[];
    };

/**
 * Thrown by {@link buildBrCode} and `brCodeToSvg` when a BR Code cannot be written or is
 * invalid. Check it with {@link isBrCodeError}, which works across realms.
 */
export class BrCodeError extends Error {
  override readonly name = 'BrCodeError' as const;
  /** What is wrong. */
  readonly reason: BrCodeReason;
  /** The field concerned, when there is one. */
  readonly field: string | undefined;

  /** @param issue The issue that stops the BR Code. */
  constructor(issue: BrCodeIssue) {
    super(issue.message);
    this.reason = issue.reason;
    this.field = issue.field;
  }
}

/** True when `error` is a {@link BrCodeError} (by name, so that it works across realms). */
export function isBrCodeError(error: unknown): error is BrCodeError {
  return error instanceof Error && error.name === 'BrCodeError';
}

/** The GUI of the Pix arrangement in a merchant account template. */
export const PIX_GUI = 'br.gov.bcb.pix';

const isTemplate = (id: string): boolean => (id >= '26' && id <= '51') || id === '62' || id >= '80';

interface Read {
  fields: BrCodeField[];
  /** Where each top-level field starts, for the CRC. */
  starts: number[];
  /** Index at which reading stopped, when it did not reach the end. */
  brokenAt: number | null;
}

function readFields(text: string, top: boolean): Read {
  const fields: BrCodeField[] = [];
  const starts: number[] = [];
  let at = 0;
  while (at < text.length) {
    const head = /^(\d\d)(\d\d)/.exec(text.slice(at, at + 4));
    if (head === null) return { fields, starts, brokenAt: at };
    const id = head[1] as string;
    const end = at + 4 + Number(head[2]);
    // A CRC field written without zero padding (`6304` then 3 digits) runs past the end: it is read as it is.
    const last = top && id === '63' && end > text.length;
    if (end > text.length && !last) return { fields, starts, brokenAt: at };
    const value = last ? text.slice(at + 4) : text.slice(at + 4, end);
    const field: BrCodeField = { id, value };
    if (top && isTemplate(id)) {
      const inner = readFields(value, false);
      if (inner.brokenAt === null) field.fields = inner.fields;
    }
    fields.push(field);
    starts.push(at);
    at = last ? text.length : end;
  }
  return { fields, starts, brokenAt: null };
}

// A message is the reason in words and the field: `59: invalid merchant name`. What each reason
// means is in its TSDoc above; a partner's UI words it in Portuguese from the reason anyway.
const issue = (reason: BrCodeReason, field?: string): BrCodeIssue =>
  field === undefined ? { reason, message: reason.replace(/_/g, ' ') } : { reason, message: `${field}: ${reason.replace(/_/g, ' ')}`, field };

/**
 * Reads a BR Code leniently: what is in the wild (an unpadded or lower-case CRC, a wrong CRC, an
 * over-long name, an accented city, whitespace around a pasted code...) is read as far as it
 * goes, and every deviation from the manuals is reported in `warnings` with a typed `reason`.
 * `brCode` is `null` only when no field can be read at all.
 *
 * @example
 * ```ts
 * const { brCode, warnings } = parseBrCode(pasted);
 * console.log(brCode?.amount, brCode?.merchantName, warnings.map((w) => w.reason));
 * ```
 */
export function parseBrCode(text: string): BrCodeParseResult {
  const warnings: BrCodeIssue[] = [];
  const warn = (reason: BrCodeReason, field?: string): void => {
    warnings.push(issue(reason, field));
  };
  const code = text.trim();
  if (code !== text) warn('whitespace');
  if (code === '') {
    warn('empty');
    return { brCode: null, warnings };
  }
  if (code.length > 512) warn('too_long');
  if (!/^[\x20-\x7e]*$/.test(code)) warn('invalid_characters');

  const read = readFields(code, true);
  if (read.brokenAt !== null) warn('malformed');
  if (read.fields.length === 0) return { brCode: null, warnings };

  const top = new Map<string, BrCodeField>();
  for (const field of read.fields) {
    if (top.has(field.id)) warn('duplicate_field', field.id);
    top.set(field.id, top.get(field.id) ?? field);
    if (isTemplate(field.id) && field.fields === undefined) warn('malformed', field.id);
    for (const inner of [field, ...(field.fields ?? [])]) if (inner.value === '') warn('empty_field', inner === field ? field.id : `${field.id}-${inner.id}`);
  }
  if (read.fields[0]?.id !== '00') warn('field_order', '00');
  if (read.brokenAt === null && read.fields[read.fields.length - 1]?.id !== '63') warn('field_order', '63');
  for (const id of ['00', '52', '53', '58', '59', '60', '62', '63']) if (!top.has(id)) warn('missing_field', id);
  const value = (id: string): string | undefined => top.get(id)?.value;

  // Plain fields: the value, when present, matches the manual's pattern.
  const rules: [string, BrCodeReason, RegExp][] = [
    ['00', 'invalid_payload_format', /^01$/],
    ['01', 'invalid_point_of_initiation', /^1[12]$/],
    ['52', 'invalid_merchant_category_code', /^\d{4}$/],
    ['53', 'invalid_currency', /^986$/],
    // Positive, `.` as separator, at most 2 decimals and 13 characters.
    ['54', 'invalid_amount', /^(?=.*[1-9])(?=.{1,13}$)(?:0|[1-9]\d*)(?:\.\d{1,2})?$/],
    ['58', 'invalid_country', /^BR$/],
    ['59', 'invalid_merchant_name', /^.{1,25}$/],
    ['60', 'invalid_merchant_city', /^.{1,15}$/],
  ];
  for (const [id, reason, pattern] of rules) {
    const v = value(id);
    if (v !== undefined && !pattern.test(v)) warn(reason, id);
  }

  // The Pix merchant account: the template among 26 to 51 whose GUI (its 00) is br.gov.bcb.pix.
  const account = read.fields.find((f) => f.id >= '26' && f.id <= '51' && f.fields?.find((s) => s.id === '00')?.value.toLowerCase() === PIX_GUI);
  const sub = new Map((account?.fields ?? []).map((f) => [f.id, f.value]));
  const key = sub.get('01');
  const url = sub.get('25');
  const at = account?.id ?? '26';
  if (account === undefined) warn('missing_pix_account', at);
  else {
    if (sub.get('00') !== PIX_GUI) warn('invalid_gui', `${at}-00`);
    if ((key === undefined) === (url === undefined)) warn('invalid_pix_account', at);
  }
  if (key !== undefined && !KEY_TYPES.some((type) => canonicalPixKey(key, type) === key)) warn('invalid_pix_key', `${at}-01`);
  if (url !== undefined && !/^(?![a-z][a-z0-9+.-]*:\/\/)\S{1,77}$/i.test(url)) warn('invalid_url', `${at}-25`);
  const kind = url !== undefined && key === undefined ? 'dynamic' : 'static';

  const txid = top.get('62')?.fields?.find((f) => f.id === '05')?.value;
  if (top.get('62')?.fields !== undefined && txid === undefined) warn('missing_field', '62-05');
  if (txid !== undefined && txid !== '***' && !isValidTxid(txid, kind)) warn('invalid_txid', '62-05');

  const crc = value('63') ?? '';
  const crcIndex = read.fields.findIndex((f) => f.id === '63');
  if (crcIndex >= 0) {
    if (!/^[0-9A-F]{4}$/.test(crc)) warn('invalid_crc_format', '63');
    // Compared upper-cased and zero-padded: a lower-case or unpadded CRC that is right is only a format issue.
    if (crc.toUpperCase().padStart(4, '0') !== crc16(code.slice(0, (read.starts[crcIndex] as number) + 4))) warn('crc_mismatch', '63');
  }

  const brCode: ParsedBrCode = {
    kind,
    singleUse: value('01') === '12',
    merchantCategoryCode: value('52') ?? '',
    currency: value('53') ?? '',
    countryCode: value('58') ?? '',
    merchantName: value('59') ?? '',
    merchantCity: value('60') ?? '',
    txid: txid ?? '',
    crc,
    fields: read.fields,
  };
  const description = sub.get('02');
  const amount = value('54');
  const postalCode = value('61');
  if (key !== undefined) brCode.key = key;
  if (description !== undefined) brCode.description = description;
  if (url !== undefined) brCode.url = url;
  if (amount !== undefined) brCode.amount = amount;
  if (postalCode !== undefined) brCode.postalCode = postalCode;
  return { brCode, warnings };
}

/**
 * Checks a BR Code strictly against the manuals: structure and field lengths, the mandatory
 * fields `00`, `52`, `53` = `986`, `58` = `BR`, `59` (at most 25), `60` (at most 15), the amount
 * format of `54`, the txid of `62-05` for a static or dynamic code, and the CRC-16/CCITT-FALSE of
 * `63` (four upper-case hex digits) over everything up to and including `6304`. Any deviation
 * {@link parseBrCode} reports is an error here.
 *
 * @example
 * ```ts
 * const result = validateBrCode(conversion.pix_qr_code);
 * if (!result.valid) console.error(result.reason, result.errors);
 * ```
 */
export function validateBrCode(text: string): BrCodeValidation {
  const { brCode, warnings } = parseBrCode(text);
  const first = warnings[0];
  if (first !== undefined || brCode === null) return { valid: false, reason: first?.reason ?? 'empty', errors: warnings };
  // No warning: exactly one of the key and the URL was found, and `kind` says which.
  return { valid: true, brCode: brCode as BrCode };
}

/** Fields of a BR Code that both kinds share. */
interface BrCodeInputBase {
  /** Receiver's name, printable ASCII, 1 to 25 characters (field 59). */
  merchantName: string;
  /** Receiver's city, printable ASCII, 1 to 15 characters (field 60). */
  merchantCity: string;
  /** Amount in reais as a decimal string (`10`, `10.5`, `10.50`); omit to let the payer choose. */
  amount?: string;
  /** Merchant category code (field 52); default `0000`. */
  merchantCategoryCode?: string;
  /** Postal code (field 61), when wanted. */
  postalCode?: string;
  /** Write field 01 = `12`: pay once only. Default false for static codes, true for dynamic ones. */
  singleUse?: boolean;
}

/** A static BR Code: the Pix key is in the code. */
export interface StaticBrCodeInput extends BrCodeInputBase {
  /** The receiver's Pix key; normalized as normalizePixKey does (`529.982.247-25` is written `52998224725`). */
  key: string;
  /** Free text shown to the payer (field 26-02). */
  description?: string;
  /** txid, 1 to 25 letters and digits (field 62-05); default `***` (none). */
  txid?: string;
  /** Not in a static code. */
  url?: never;
}

/** A dynamic BR Code: the paying bank fetches the charge at `url`. */
export interface DynamicBrCodeInput extends BrCodeInputBase {
  /** The charge's location (field 26-25) without `https://`, at most 77 characters. */
  url: string;
  /** Not in a dynamic code. */
  key?: never;
}

/** What {@link buildBrCode} takes. */
export type BuildBrCodeInput = StaticBrCodeInput | DynamicBrCodeInput;

/** One field, or nothing when `value` is undefined. */
function tlv(id: string, value: string | undefined): string {
  if (value === undefined) return '';
  if (value.length > 99) throw new BrCodeError(issue('field_too_long', id));
  return `${id}${String(value.length).padStart(2, '0')}${value}`;
}

/**
 * Writes a BR Code (the "copia e cola" text) and checks the result with {@link validateBrCode}:
 * it throws a {@link BrCodeError} whose `reason` says what is wrong instead of writing a code a
 * paying bank would refuse. Names and cities must be ASCII (write `Sao Paulo`, not `São Paulo`).
 *
 * @example
 * ```ts
 * const text = buildBrCode({ key: 'pix@example.com', merchantName: 'LOJA EXEMPLO', merchantCity: 'SAO PAULO', amount: '10.00', txid: 'PEDIDO123' });
 * const dynamic = buildBrCode({ url: 'pix.example.com/qr/v2/9d36b84f', merchantName: 'LOJA EXEMPLO', merchantCity: 'SAO PAULO' });
 * ```
 */
export function buildBrCode(input: BuildBrCodeInput): string {
  const code = writeBrCode(input, input.url !== undefined ? undefined : (KEY_TYPES.map((type) => canonicalPixKey(input.key, type)).find((k) => k !== null) ?? input.key));
  const result = validateBrCode(code);
  if (!result.valid) throw new BrCodeError(result.errors[0] as BrCodeIssue);
  return code;
}

/**
 * The fields of `input` and their CRC, with `key` as the static code's key, not read back: what
 * {@link buildBrCode} writes before it checks the result. For a caller whose every input is
 * valid by construction (the sandbox's codes: a fixed key, name and city, amounts and txids it
 * writes itself), where reading the code back cost about 60% of writing it.
 * @internal
 */
export function writeBrCode(input: BuildBrCodeInput, key: string | undefined): string {
  const dynamic = input.url !== undefined;
  const payload =
    tlv('00', '01') +
    tlv('01', (input.singleUse ?? dynamic) ? '12' : undefined) +
    tlv('26', tlv('00', PIX_GUI) + tlv('01', key) + tlv('02', dynamic ? undefined : input.description) + tlv('25', input.url)) +
    tlv('52', input.merchantCategoryCode ?? '0000') +
    tlv('53', '986') +
    tlv('54', input.amount) +
    tlv('58', 'BR') +
    tlv('59', input.merchantName) +
    tlv('60', input.merchantCity) +
    tlv('61', input.postalCode) +
    tlv('62', tlv('05', (dynamic ? undefined : input.txid) ?? '***')) +
    '6304';
  return payload + crc16(payload);
}
