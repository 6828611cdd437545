<?php

namespace Licensing\Tests\Joomla;

use Licensing\Joomla\ParamsCache;
use Licensing\Tests\Joomla\Support\Site;
use PHPUnit\Framework\TestCase;

/** The cache kept as one JSON text in the plugin's params, through the plugin's callables. */
final class ParamsCacheTest extends TestCase
{
    /** @var string|null the text the "params field" holds */
    private $stored = null;
    /** @var int */
    private $loads = 0;
    /** @var int */
    private $saves = 0;

    private function cache(): ParamsCache
    {
        return new ParamsCache(
            function (): ?string {
                $this->loads++;
                return $this->stored;
            },
            function (string $json): void {
                $this->saves++;
                $this->stored = $json;
            }
        );
    }

    public function testEntriesAreSavedTogetherAndReadBackByALaterRequest(): void
    {
        $cache = $this->cache();
        $this->assertNull($cache->get('a'));
        $cache->set('a', 'one');
        $cache->set('b', '{"x":"/é"}');
        $this->assertSame('{"a":"one","b":"{\"x\":\"/é\"}"}', $this->stored);
        $later = $this->cache();
        $this->assertSame('one', $later->get('a'));
        $this->assertSame('{"x":"/é"}', $later->get('b'));
    }

    public function testTheTextIsReadOnceARequest(): void
    {
        $cache = $this->cache();
        $cache->get('a');
        $cache->set('a', 'one');
        $cache->get('a');
        $this->assertSame(1, $this->loads);
        $this->assertSame(1, $this->saves);
    }

    public function testTextThatIsNotTheCachesCountsAsEmpty(): void
    {
        foreach (['', 'not json', '[1,2]', '{"a":{"b":1}}'] as $text) {
            $this->stored = $text;
            $this->assertNull($this->cache()->get('a'), $text);
        }
    }

    public function testTheLicenseCheckKeepsItsStateThereBetweenRequests(): void
    {
        $site = new Site([Site::answer('active')], $this->cache());
        $site->check()->run();
        // The next page load reads the params anew.
        $site->cache = $this->cache();
        $site->now += 3600;
        $this->assertSame('active', $site->check()->run()->state);
        $this->assertCount(1, $site->transport->requests);
        $this->assertArrayHasKey('joomla_license_check', json_decode((string) $this->stored, true));
        $this->assertStringNotContainsString('KEY-1', (string) $this->stored);
    }
}
