/**
 * The getting-started walkthrough: contributed by the installed extension, every step's media and
 * the images they show are in the extension, every command its buttons and completion events name
 * exists in this VS Code, and `workbench.action.openWalkthrough` opens it.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { EXTENSION_ID, extensionApi, waitUntil } from './helpers';

interface WalkthroughStep {
  id: string;
  title: string;
  description: string;
  media: { markdown?: string; image?: string; altText?: string };
  completionEvents?: string[];
}

interface Walkthrough {
  id: string;
  title: string;
  steps: WalkthroughStep[];
}

const WALKTHROUGH_ID = 'gettingStarted';

function contributedWalkthroughs(): { root: string; walkthroughs: Walkthrough[] } {
  const extension = vscode.extensions.getExtension(EXTENSION_ID);
  assert.ok(extension, `${EXTENSION_ID} is installed`);
  const contributes = (extension.packageJSON as { contributes: { walkthroughs?: Walkthrough[] } })
    .contributes;
  return { root: extension.extensionPath, walkthroughs: contributes.walkthroughs ?? [] };
}

/** Every `command:ID` link of a step's description. */
function linkedCommands(description: string): string[] {
  return [...description.matchAll(/\(command:([\w.-]+)\)/g)].map((m) => m[1]);
}

describe('the getting-started walkthrough', () => {
  before(async () => {
    await extensionApi(); // the extension's own commands are registered once it is active
  });

  it('is contributed with steps from a first stop to an attach and an agent', () => {
    const { walkthroughs } = contributedWalkthroughs();
    const walkthrough = walkthroughs.find((w) => w.id === WALKTHROUGH_ID);
    assert.ok(walkthrough, `walkthrough ${WALKTHROUGH_ID} is contributed`);
    assert.deepEqual(
      walkthrough.steps.map((s) => s.id),
      ['firstStop', 'launchJson', 'copyRuntime', 'attach', 'agent'],
    );
  });

  it('ships every step media file and every image the media show', () => {
    const { root, walkthroughs } = contributedWalkthroughs();
    const walkthrough = walkthroughs.find((w) => w.id === WALKTHROUGH_ID)!;
    for (const step of walkthrough.steps) {
      const media = step.media.markdown ?? step.media.image;
      assert.ok(media, `step ${step.id} has media`);
      const file = path.join(root, media);
      assert.ok(fs.existsSync(file), `step ${step.id}: ${media} is in the extension`);
      if (!step.media.markdown) continue;
      const text = fs.readFileSync(file, 'utf8');
      for (const m of text.matchAll(/!\[[^\]]*\]\(([^)]+)\)/g)) {
        const image = path.resolve(path.dirname(file), m[1]);
        assert.ok(fs.existsSync(image), `step ${step.id}: its image ${m[1]} is in the extension`);
      }
    }
  });

  it('names only commands that exist, in its buttons and completion events', async () => {
    const { walkthroughs } = contributedWalkthroughs();
    const walkthrough = walkthroughs.find((w) => w.id === WALKTHROUGH_ID)!;
    const commands = new Set(await vscode.commands.getCommands(false));
    for (const step of walkthrough.steps) {
      const named = [
        ...linkedCommands(step.description),
        ...(step.completionEvents ?? [])
          .filter((e) => e.startsWith('onCommand:'))
          .map((e) => e.slice('onCommand:'.length)),
      ];
      assert.ok(named.length > 0, `step ${step.id} offers a button`);
      for (const command of named) {
        assert.ok(commands.has(command), `step ${step.id}: command ${command} exists`);
      }
    }
  });

  it('opens with workbench.action.openWalkthrough', async () => {
    await vscode.commands.executeCommand(
      'workbench.action.openWalkthrough',
      `${EXTENSION_ID}#${WALKTHROUGH_ID}`,
      false,
    );
    // The walkthrough is the workbench's own editor (not a text document): its tab turns active.
    const walkthroughTab = (): vscode.Tab | undefined => {
      const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
      return tab && !(tab.input instanceof vscode.TabInputText) ? tab : undefined;
    };
    await waitUntil(() => walkthroughTab() !== undefined, 10_000, 'the walkthrough editor');
    const label = walkthroughTab()!.label;
    console.log(`walkthrough opened in the tab "${label}"`);
    assert.match(label, /Welcome|Walkthrough|LuaPanda/i);
    await vscode.window.tabGroups.close(walkthroughTab()!);
  });
});
