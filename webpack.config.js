// Bundles for the VSIX and the headless tools: the extension (with `vscode` left external, as the
// host provides it) and the two command-line entries. `npm run build` runs tsc first for type
// checking; ts-loader here only transpiles.
'use strict';

const path = require('node:path');
const webpack = require('webpack');

/** @type {(entry: string, output: string, extra?: object) => import('webpack').Configuration} */
function bundle(entry, output, extra = {}) {
  return {
    target: 'node',
    mode: 'none',
    entry: path.resolve(__dirname, entry),
    output: {
      path: path.resolve(__dirname, 'dist'),
      filename: output,
      libraryTarget: 'commonjs2',
    },
    devtool: 'nosources-source-map',
    externals: { vscode: 'commonjs vscode' },
    resolve: { extensions: ['.ts', '.js'] },
    module: {
      rules: [
        {
          test: /\.ts$/,
          exclude: /node_modules/,
          use: [{ loader: 'ts-loader', options: { transpileOnly: true } }],
        },
      ],
    },
    optimization: { minimize: false },
    infrastructureLogging: { level: 'warn' },
    ...extra,
  };
}

const cli = {
  plugins: [
    new webpack.BannerPlugin({ banner: '#!/usr/bin/env node', raw: true, entryOnly: true }),
  ],
};

module.exports = [
  bundle('src/extension/extension.ts', 'extension.js'),
  bundle('src/cli/dap.ts', 'cli/luapanda-dap.js', cli),
  bundle('src/cli/mcp.ts', 'cli/luapanda-mcp.js', cli),
];
