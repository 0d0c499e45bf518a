// The whole Worker of the Durable Objects deployment (docs/scale.md): the package's handler and
// its two object classes, bound in wrangler.toml.
export { default, TenantObject, Directory } from 'pix-usdt/durable-object';
