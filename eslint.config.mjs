// Lint rules for the TypeScript sources; `npm test` runs this, so CI holds the line.
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';
import layers from './scripts/eslint-layers.mjs';

export default tseslint.config(
  { ignores: ['node_modules/', 'out/', 'dist/', '.test-artifacts/', '**/*.js', '**/*.mjs'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      eqeqeq: ['error', 'always'],
      'no-console': ['error', { allow: ['error', 'warn'] }],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts', 'src/cli/**/*.ts'],
    rules: { 'no-console': 'off' },
  },
  {
    // Dependencies point down the layers of src/ (scripts/eslint-layers.mjs).
    files: ['src/**/*.ts'],
    plugins: { layers },
    rules: { 'layers/imports-down': 'error' },
  },
);
