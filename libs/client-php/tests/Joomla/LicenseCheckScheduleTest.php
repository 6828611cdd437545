<?php

namespace Licensing\Tests\Joomla;

use Licensing\Cache\Cache;
use Licensing\Joomla\LicenseCheck;
use Licensing\Joomla\LicenseStatus;
use Licensing\LicensingClient;
use Licensing\LicensingException;
use Licensing\Tests\Joomla\Support\Site;
use Licensing\Tests\Support\FakeTransport;
use PHPUnit\Framework\TestCase;

/** The license check asks the server at most once an interval, and keeps what it found. */
final class LicenseCheckScheduleTest extends TestCase
{
    private const HOUR = 3600.0;

    public function testNoSecondCallWithinTheIntervalAndACallAfterIt(): void
    {
        $site = new Site([Site::answer('active'), Site::answer('expired')]);
        $check = $site->check(['interval' => 12 * 3600]);
        $this->assertSame(LicenseStatus::ACTIVE, $check->run()->state);
        $site->now += 12 * self::HOUR - 1;
        $this->assertSame(LicenseStatus::ACTIVE, $check->run()->state);
        $this->assertCount(1, $site->transport->requests);
        $site->now += 1;
        $this->assertSame(LicenseStatus::EXPIRED, $check->run()->state);
        $this->assertCount(2, $site->transport->requests);
        $this->assertStringEndsWith('/licenses/validate', $site->transport->requests[1]['url']);
        $this->assertSame('license_key=KEY-1&product_id=42', $site->transport->requests[1]['body']);
    }

    public function testTheStateIsKeptAcrossRequestsInTheCache(): void
    {
        $site = new Site([Site::answer('active')]);
        $site->check()->run();
        $site->now += self::HOUR;
        // A later page load: a new check, the same cache.
        $status = $site->check()->run();
        $this->assertSame(LicenseStatus::ACTIVE, $status->state);
        $this->assertSame('2027-03-12T00:00:00.000Z', $status->expiresAt);
        $this->assertSame('2027-01-15T08:00:00Z', $status->checkedAt);
        $this->assertCount(1, $site->transport->requests);
    }

    public function testTheDefaultIntervalIsTwelveHours(): void
    {
        $site = new Site([Site::answer('active'), Site::answer('active')]);
        $check = $site->check();
        $check->run();
        $site->now += 12 * self::HOUR - 1;
        $check->run();
        $this->assertCount(1, $site->transport->requests);
        $site->now += 1;
        $check->run();
        $this->assertCount(2, $site->transport->requests);
    }

    public function testANewDownloadKeyIsCheckedAtOnce(): void
    {
        $site = new Site([Site::answer('invalid'), Site::answer('active')]);
        $check = $site->check();
        $this->assertSame(LicenseStatus::NOT_FOUND, $check->run()->state);
        $site->downloadKey = ' KEY-2 ';
        $this->assertSame(LicenseStatus::ACTIVE, $check->run()->state);
        $this->assertSame('license_key=KEY-2&product_id=42', $site->transport->requests[1]['body']);
    }

    public function testNoDownloadKeyAsksNothing(): void
    {
        $site = new Site([]);
        $site->downloadKey = '  ';
        $this->assertSame(LicenseStatus::NO_KEY, $site->check()->run()->state);
        $this->assertCount(0, $site->transport->requests);
    }

    public function testAClockSetBackBeforeTheLastCheckChecksAgain(): void
    {
        $site = new Site([Site::answer('active'), Site::answer('revoked')]);
        $check = $site->check();
        $check->run();
        $site->now -= 24 * self::HOUR;
        $this->assertSame(LicenseStatus::REVOKED, $check->run()->state);
        $this->assertCount(2, $site->transport->requests);
    }

    public function testACheckWithoutAnAnswerIsTriedAgainAfterTheRetryInterval(): void
    {
        $down = new LicensingException(LicensingException::CONNECTION_ERROR, 'Connection error: refused');
        $site = new Site([$down, Site::answer('active')]);
        $check = $site->check(['retry_interval' => 3600]);
        $this->assertSame(LicenseStatus::UNREACHABLE, $check->run()->state);
        $site->now += self::HOUR - 1;
        $this->assertSame(LicenseStatus::UNREACHABLE, $check->run()->state);
        $this->assertCount(1, $site->transport->requests);
        $site->now += 1;
        $this->assertSame(LicenseStatus::ACTIVE, $check->run()->state);
    }

    public function testACacheThatFailsOnlyMakesEveryRequestCheck(): void
    {
        $broken = new class () implements Cache {
            public function get(string $key): ?string
            {
                throw new \RuntimeException('database gone');
            }

            public function set(string $key, string $value): void
            {
                throw new \RuntimeException('database gone');
            }
        };
        $transport = new FakeTransport([Site::answer('active'), Site::answer('active')]);
        $client = new LicensingClient('https://shop.example.com', 42, ['transport' => $transport]);
        $check = new LicenseCheck($client, $broken, function (): string {
            return 'KEY-1';
        });
        $this->assertSame(LicenseStatus::ACTIVE, $check->run()->state);
        $this->assertSame(LicenseStatus::ACTIVE, $check->run()->state);
        $this->assertCount(2, $transport->requests);
    }

    public function testAWrongOptionIsRefusedAtConstruction(): void
    {
        $site = new Site([]);
        foreach ([['intervall' => 60], ['interval' => 0], ['interval' => '12h'], ['clock' => 'now'], ['date_format' => 'j F Y'], ['messages' => ['actve' => 'x']]] as $options) {
            try {
                $site->check($options);
                $this->fail('accepted ' . json_encode($options));
            } catch (\InvalidArgumentException $refused) {
                $this->assertNotSame('', $refused->getMessage());
            }
        }
    }
}
