// The Jest configuration of examples/jest (run by `npm test` as `npm run test:jest`): Jest 30,
// CommonJS test files, babel-jest. docs/testing.md gives the part a partner copies.
const path = require('node:path');

const root = path.resolve(__dirname, '../..');

/** @type {import('jest').Config} */
module.exports = {
  rootDir: root,
  testMatch: ['<rootDir>/examples/jest/**/*.test.cjs'],
  testEnvironment: 'node',
  // For msw only (the kit itself needs none of this): msw 2's dependencies rettime, until-async
  // and @open-draft/deferred-promise ship ES modules only, which Jest's CommonJS runtime cannot
  // require. babel-jest turns them into CommonJS; every other package stays untransformed.
  transform: { '\\.[cm]?js$': ['babel-jest', { plugins: ['@babel/plugin-transform-modules-commonjs'] }] },
  transformIgnorePatterns: ['/node_modules/(?!(rettime|until-async|@open-draft/deferred-promise)/)', '<rootDir>/dist/'],
  // This repository only: `pix-usdt` is the package itself, built in dist/ (a partner's Jest
  // resolves the installed package through its `exports`, with no mapping).
  moduleNameMapper: {
    '^pix-usdt$': '<rootDir>/dist/index.cjs',
    '^pix-usdt/sandbox/msw$': '<rootDir>/dist/sandbox-msw.cjs',
    '^pix-usdt/(sandbox|webhooks|testing|pix)$': '<rootDir>/dist/$1.cjs',
  },
};
