<?php

namespace Licensing\Tests\Joomla;

use PHPUnit\Framework\TestCase;

/**
 * The sample system plugin (examples/joomla-plugin/) is what docs/updaters/joomla.md tells a
 * seller to paste: a manifest Joomla 4 and 5 install, with the update server and the <dlid>, and
 * code that PHP reads (it runs only inside Joomla).
 */
final class ExamplePluginTest extends TestCase
{
    private const PLUGIN = __DIR__ . '/../../examples/joomla-plugin';
    private const DOC = __DIR__ . '/../../../../docs/updaters/joomla.md';

    /** @var \SimpleXMLElement */
    private $manifest;

    protected function setUp(): void
    {
        $manifest = simplexml_load_file(self::PLUGIN . '/example.xml');
        $this->assertNotFalse($manifest);
        $this->manifest = $manifest;
    }

    public function testTheManifestIsASystemPluginNamedForItsElement(): void
    {
        $this->assertSame('plugin', (string) $this->manifest['type']);
        $this->assertSame('system', (string) $this->manifest['group']);
        $this->assertSame('upgrade', (string) $this->manifest['method']);
        $this->assertSame('plg_system_example', (string) $this->manifest->name);
        // Joomla takes the element from the `plugin` attribute of a <files> entry.
        $this->assertSame('example', (string) $this->manifest->files->folder[0]['plugin']);
        $this->assertSame('Example\Plugin\System\Example', (string) $this->manifest->namespace);
    }

    public function testThePackageWithTheLibraryCopiedInHasEveryFolderAndLoadsWithoutJoomla(): void
    {
        $package = sys_get_temp_dir() . '/plg_system_example-' . bin2hex(random_bytes(4));
        try {
            self::copy(self::PLUGIN, $package);
            // The seller's one step: the library as lib/.
            self::copy(dirname(__DIR__, 2) . '/src', $package . '/lib/src');
            copy(dirname(__DIR__, 2) . '/loader.php', $package . '/lib/loader.php');
            foreach ($this->manifest->files->folder as $folder) {
                $this->assertDirectoryExists($package . '/' . $folder, 'a folder the manifest lists');
            }
            $script = 'require ' . var_export($package . '/lib/loader.php', true) . ';'
                . ' echo json_encode([class_exists("Licensing\\Joomla\\LicenseCheck"),'
                . ' class_exists("Licensing\\Joomla\\ParamsCache"), class_exists("Joomla\\CMS\\Factory")]);';
            exec('timeout 30 ' . escapeshellarg(PHP_BINARY) . ' -r ' . escapeshellarg($script) . ' 2>&1', $output, $status);
            $this->assertSame(0, $status, implode("\n", $output));
            $this->assertSame('[true,true,false]', implode('', $output));
        } finally {
            self::remove($package);
        }
    }

    public function testTheManifestHasTheDocsUpdateServerDlidAndChangelog(): void
    {
        $doc = (string) file_get_contents(self::DOC);
        $this->assertSame(1, preg_match('/## Quick start.*?```xml\n(.*?)```/s', $doc, $block));
        $xml = (string) file_get_contents(self::PLUGIN . '/example.xml');
        foreach (array_filter(array_map('trim', explode("\n", $block[1]))) as $line) {
            $this->assertStringContainsString($line, $xml);
        }
        $dlid = $this->manifest->dlid;
        $this->assertSame('dlid=', (string) $dlid['prefix']);
        $this->assertSame('', (string) $dlid['suffix']);
        $server = $this->manifest->updateservers->server;
        $this->assertSame('extension', (string) $server['type']);
        $this->assertStringEndsWith('/api/index.php/v1/licensing/updates/42/joomla.xml', (string) $server);
    }

    public function testTheCodeReadsTheDownloadKeyOfThisPluginsUpdateSite(): void
    {
        $code = (string) file_get_contents(self::PLUGIN . '/src/Extension/Example.php');
        $this->assertStringContainsString("getExtensionDownloadKey('example', 'plugin', 0, 'system')", $code);
        $this->assertStringContainsString("'onAfterInitialise' => 'checkLicense'", $code);
        $this->assertStringContainsString('->enqueueMessage(', $code);
        $this->assertStringContainsString("PluginHelper::getPlugin('system', 'example')", (string) file_get_contents(self::PLUGIN . '/services/provider.php'));
    }

    public function testEveryPhpFileOfThePluginParses(): void
    {
        $files = [self::PLUGIN . '/services/provider.php', self::PLUGIN . '/src/Extension/Example.php'];
        foreach ($files as $file) {
            exec('timeout 30 ' . escapeshellarg(PHP_BINARY) . ' -l ' . escapeshellarg($file) . ' 2>&1', $output, $status);
            $this->assertSame(0, $status, implode("\n", $output));
        }
    }

    private static function copy(string $from, string $to): void
    {
        if (!is_dir($to)) {
            mkdir($to, 0777, true);
        }
        foreach (scandir($from) as $name) {
            if ($name === '.' || $name === '..') {
                continue;
            }
            is_dir($from . '/' . $name) ? self::copy($from . '/' . $name, $to . '/' . $name) : copy($from . '/' . $name, $to . '/' . $name);
        }
    }

    private static function remove(string $path): void
    {
        if (is_dir($path)) {
            foreach (scandir($path) as $name) {
                if ($name !== '.' && $name !== '..') {
                    self::remove($path . '/' . $name);
                }
            }
            rmdir($path);
        } elseif (file_exists($path)) {
            unlink($path);
        }
    }
}
