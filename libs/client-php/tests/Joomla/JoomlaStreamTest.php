<?php

namespace Licensing\Tests\Joomla;

use Licensing\Tests\Joomla\Support\JoomlaUpdate;
use PHPUnit\Framework\TestCase;

/**
 * The update stream this service serves, read as Joomla 5's updater reads it (Support/
 * JoomlaUpdate.php): which release a site takes, and the download URL with its Download Key.
 *
 * The stream is the one test/client-php/joomla-stream.ts fetched from the running service
 * (LICENSING_JOOMLA_STREAM_DIR), or the copy of such a stream it keeps in fixtures/, with the
 * releases it was made of in joomla-stream.json.
 */
final class JoomlaStreamTest extends TestCase
{
    /** @var string */
    private $xml;
    /** @var array<string, mixed> */
    private $made;

    protected function setUp(): void
    {
        $dir = getenv('LICENSING_JOOMLA_STREAM_DIR') ?: __DIR__ . '/fixtures';
        $this->xml = (string) file_get_contents($dir . '/joomla-stream.xml');
        $this->made = json_decode((string) file_get_contents($dir . '/joomla-stream.json'), true);
    }

    private function choose(string $joomla, string $php = '8.2.12', string $stability = 'stable'): ?\stdClass
    {
        return JoomlaUpdate::choose($this->xml, $joomla, $php, $stability);
    }

    public function testJoomla5TakesTheStableReleaseForTheExtensionItIsFor(): void
    {
        $update = $this->choose('5.1.2');
        $this->assertNotNull($update);
        $stable = $this->made['releases']['stable'];
        $this->assertSame($stable['version'], $update->version->_data);
        $extension = $this->made['extension'];
        $this->assertSame($extension['element'], $update->element->_data);
        $this->assertSame($extension['type'], $update->type->_data);
        $this->assertSame($extension['client'], $update->client->_data);
        $this->assertSame($extension['folder'], $update->folder->_data);
        $this->assertSame('full', $update->downloadurl->type);
        $this->assertSame('zip', $update->downloadurl->format);
        $this->assertSame($stable['sha256'], $update->sha256->_data);
        $this->assertSame($stable['sha512'], $update->sha512->_data);
    }

    public function testTheDownloadKeyIsAppendedToTheDownloadUrlAsJoomlaDoes(): void
    {
        $update = $this->choose('5.1.2');
        $url = JoomlaUpdate::downloadUrl($update, 'dlid=' . $this->made['key']);
        $this->assertSame($this->made['releases']['stable']['downloadurl'] . '?dlid=' . $this->made['key'], $url);
        $this->assertSame($url, JoomlaUpdate::requestUrl($url));
        $this->assertSame($this->made['releases']['stable']['downloadurl'], JoomlaUpdate::downloadUrl($update, ''));
    }

    public function testASiteThatAllowsBetasTakesTheNewerBeta(): void
    {
        $update = $this->choose('5.1.2', '8.2.12', 'beta');
        $this->assertSame($this->made['releases']['beta']['version'], $update->version->_data);
        $this->assertSame(2, $update->stability);
        $url = JoomlaUpdate::downloadUrl($update, 'dlid=' . $this->made['key']);
        $this->assertSame($this->made['releases']['beta']['downloadurl'] . '?dlid=' . $this->made['key'], $url);
    }

    public function testTheTargetPlatformIsMatchedAgainstTheJoomlaVersion(): void
    {
        $this->assertSame('[45]\.', $this->made['extension']['target_platform']);
        $this->assertNotNull($this->choose('4.4.3'));
        $this->assertNull($this->choose('3.10.12'));
        $this->assertNull($this->choose('6.0.0'));
    }

    public function testASiteBelowTheMinimumPhpTakesNothing(): void
    {
        $this->assertSame('8.1', $this->made['extension']['php_minimum']);
        $this->assertNotNull($this->choose('5.1.2', '8.1.0'));
        $this->assertNull($this->choose('5.1.2', '8.0.30'));
    }
}
