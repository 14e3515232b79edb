// Build step (npm run build): the WordPress plugin as a site owner installs it. Writes the translation template
// languages/waypost-bridge.pot into the plugin's folder (every string of the `waypost-bridge` text domain, extracted
// by wp-pot, which parses the PHP with php-parser, offline), then packs the folder into dist/waypost-bridge.zip for
// Plugins > Add New > Upload. The plugin carries Waypost's version: the build stops if its header, its constant or
// its readme.txt's Stable tag says another.
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WP_Pot } from 'wp-pot';
import { zip, type ZipEntry } from './zip.js';

// src/build/ and dist/build/ are both two levels below the package root.
const PACKAGE_ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
export const PLUGIN_SLUG = 'waypost-bridge';
export const PLUGIN_DIR = join(PACKAGE_ROOT, 'integrations', 'wordpress', PLUGIN_SLUG);
export const POT_FILE = join(PLUGIN_DIR, 'languages', `${PLUGIN_SLUG}.pot`);
export const PLUGIN_ZIP = join(PACKAGE_ROOT, 'dist', `${PLUGIN_SLUG}.zip`);

/** The translation template of the plugin's PHP files (deterministic: no creation date). */
export function pluginPot(dir = PLUGIN_DIR): string {
  const version = readVersions(dir).header;
  return new WP_Pot({
    pathsRelativeTo: dir,
    php: { textdomain: PLUGIN_SLUG, metadataFile: `${PLUGIN_SLUG}.php` },
    pot: {
      package: `Waypost Bridge ${version}`,
      extraHeaders: { 'X-Domain': PLUGIN_SLUG },
    },
  }).parse(`${dir}/**/*.php`).generatePot();
}

/** The version the plugin states in its three places. */
export function readVersions(dir = PLUGIN_DIR): { header: string; constant: string; stableTag: string } {
  const main = readFileSync(join(dir, `${PLUGIN_SLUG}.php`), 'utf8');
  const readme = readFileSync(join(dir, 'readme.txt'), 'utf8');
  const find = (text: string, pattern: RegExp, what: string) => {
    const found = pattern.exec(text)?.[1];
    if (!found) throw new Error(`${PLUGIN_SLUG}: no ${what} found`);
    return found;
  };
  return {
    header: find(main, /^\s*\*\s*Version:\s*(\S+)/m, 'Version: header'),
    constant: find(main, /define\(\s*'WAYPOST_BRIDGE_VERSION',\s*'([^']+)'/, 'WAYPOST_BRIDGE_VERSION'),
    stableTag: find(readme, /^Stable tag:\s*(\S+)/m, 'Stable tag in readme.txt'),
  };
}

/** Every file of the plugin's folder, as zip entries under `waypost-bridge/` (folders first, names sorted). */
function entries(dir: string, base = dir): ZipEntry[] {
  const out: ZipEntry[] = [];
  for (const name of readdirSync(dir).sort()) {
    if (name.startsWith('.')) continue; // editor and OS leftovers
    const path = join(dir, name);
    const inZip = `${PLUGIN_SLUG}/${relative(base, path).split('\\').join('/')}`;
    if (statSync(path).isDirectory()) out.push({ name: `${inZip}/`, data: Buffer.alloc(0) }, ...entries(path, base));
    else out.push({ name: inZip, data: readFileSync(path) });
  }
  return out;
}

/** The plugin's folder as a zip, as WordPress' Plugins > Add New > Upload takes it. */
export function pluginArchive(dir = PLUGIN_DIR): { archive: Buffer; files: number } {
  const files = [{ name: `${PLUGIN_SLUG}/`, data: Buffer.alloc(0) }, ...entries(dir)];
  return { archive: zip(files), files: files.filter((f) => !f.name.endsWith('/')).length };
}

/** Writes the .pot and the zip; returns what it wrote. */
export function buildPlugin(): { pot: string; zip: string; files: number; bytes: number } {
  const waypostVersion = (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string })
    .version;
  const versions = readVersions();
  const wrong = Object.entries(versions).filter(([, v]) => v !== waypostVersion);
  if (wrong.length) {
    throw new Error(`${PLUGIN_SLUG} must carry Waypost's version ${waypostVersion}: `
      + wrong.map(([where, v]) => `${where} says ${v}`).join(', '));
  }
  mkdirSync(join(PLUGIN_DIR, 'languages'), { recursive: true });
  writeFileSync(POT_FILE, pluginPot());
  const { archive, files } = pluginArchive();
  mkdirSync(join(PACKAGE_ROOT, 'dist'), { recursive: true });
  writeFileSync(PLUGIN_ZIP, archive);
  return { pot: POT_FILE, zip: PLUGIN_ZIP, files, bytes: archive.length };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const built = buildPlugin();
  console.log(`wordpress plugin: ${relative(PACKAGE_ROOT, built.zip)} (${built.files} files, `
    + `${(built.bytes / 1024).toFixed(0)} KiB), ${relative(PACKAGE_ROOT, built.pot)}`);
}
