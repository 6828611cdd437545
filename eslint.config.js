import js from '@eslint/js';
import { builtinRules } from 'eslint/use-at-your-own-risk';
import tseslint from 'typescript-eslint';

/**
 * Lines that count towards a file's length: its code, not its blank lines or comments
 * (docs/architecture.md, "Folders").
 */
const counted = { skipBlankLines: true, skipComments: true };

/**
 * ESLint takes one severity per rule, so the limit past which a file is refused is ESLint's
 * `max-lines` again, under a name of its own.
 */
const house = { rules: { 'max-lines-refused': builtinRules.get('max-lines') } };

export default tseslint.config(
  { ignores: ['dist/', 'libs/client/dist/', 'node_modules/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['services/**/*.{ts,tsx}', 'libs/**/*.{ts,tsx}', 'bench/**/*.{ts,tsx}'],
    plugins: { house },
    rules: {
      'max-lines': ['warn', { max: 300, ...counted }],
      'house/max-lines-refused': ['error', { max: 400, ...counted }],
    },
  },
  {
    files: ['test/**/*.{ts,tsx}'],
    rules: { 'max-lines': ['error', { max: 800, ...counted }] },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        module: 'writable',
        require: 'readonly',
      },
    },
  },
);
