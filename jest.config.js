// ESM jest: the project is "type": "module", so tests run as ES modules through @swc/jest
// with legacy decorators and emitted metadata (Nest's DI reads design:paramtypes).
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2023',
      keepClassNames: true,
    },
    module: { type: 'es6' },
    sourceMaps: 'inline',
  },
];

const shared = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': swc },
  roots: ['<rootDir>/src', '<rootDir>/test'],
};

// Unit tests of pure logic need no database: only the e2e project creates the run's database
// and Redis prefix and applies the migrations before each of its files.
export default {
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['**/*.spec.ts'] },
    {
      ...shared,
      displayName: 'e2e',
      testMatch: ['**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/test/setup/global-setup.ts',
      globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
      setupFilesAfterEnv: ['<rootDir>/test/setup/migrate-database.ts'],
    },
  ],
  reporters: ['default', '<rootDir>/test/setup/summary-reporter.js'],
  testTimeout: 30000,
  // Twice the 2 cores: e2e files spend much of their time waiting on servers, child processes
  // and timeouts, and what they do meanwhile (polling, sweeps, timers) costs CPU for as long as
  // the run lasts. On a slow day of this machine the suite took 540 s with 2 workers (618 s for
  // the whole CI run, over its 10 minutes) and 462 s with 3; back to back on another day, 413 s
  // with 3 and 387 s with 4, the cores busy 98-99 % of the time either way.
  maxWorkers: 4,
};
