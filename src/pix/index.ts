/**
 * `pix-usdt/pix`: the Pix toolkit a checkout and a back office need. BR Code parse, validate and
 * build, the QR image as SVG, Pix keys, CPF and CNPJ (including the alphanumeric CNPJ), end-to-end
 * ids and txids. Isomorphic (no Node built-ins), pure functions, tree-shakeable: a partner who
 * imports `validatePixKey` alone ships neither the BR Code reader nor the QR encoder. Test-data
 * generators (`generateCpf`, `generateCnpj`) are in `pix-usdt/pix/testing`.
 * @module
 */
export {
  BrCodeError,
  PIX_GUI,
  buildBrCode,
  isBrCodeError,
  parseBrCode,
  validateBrCode,
  type BrCode,
  type BrCodeBase,
  type DynamicBrCode,
  type ParsedBrCode,
  type StaticBrCode,
  type BrCodeField,
  type BrCodeIssue,
  type BrCodeParseResult,
  type BrCodeReason,
  type BrCodeValidation,
  type BuildBrCodeInput,
  type DynamicBrCodeInput,
  type StaticBrCodeInput,
} from './brcode.js';
export { crc16 } from './crc.js';
export {
  formatCnpj,
  formatCpf,
  isValidCnpj,
  isValidCpf,
  maskCnpj,
  maskCpf,
  normalizeCnpj,
  normalizeCpf,
} from './documents.js';
export { isValidTxid, parseEndToEndId, type EndToEndId, type EndToEndIdReason, type EndToEndIdResult } from './identifiers.js';
export { PIX_EMAIL_MAX_LENGTH, detectPixKeyType, normalizePixKey, validatePixKey, type PixKeyReason, type PixKeyType, type PixKeyValidation } from './keys.js';
export { brCodeToSvg, type BrCodeSvgOptions } from './qr.js';
