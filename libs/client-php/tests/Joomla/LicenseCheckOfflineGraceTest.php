<?php

namespace Licensing\Tests\Joomla;

use Licensing\Joomla\LicenseStatus;
use Licensing\LicensingException;
use Licensing\Tests\Joomla\Support\Site;
use Licensing\Tests\Support\Signer;
use PHPUnit\Framework\TestCase;

/**
 * While the server cannot be reached, the check gives the last verified answer, within the
 * client's offline grace, and says so; past the grace the license could not be checked.
 */
final class LicenseCheckOfflineGraceTest extends TestCase
{
    private const HOUR = 3600.0;

    /** @var Site */
    private $site;
    /** @var Signer */
    private $signer;

    protected function setUp(): void
    {
        $this->signer = new Signer(7, Site::START);
        $down = new LicensingException(LicensingException::CONNECTION_ERROR, 'Connection error: refused');
        $this->site = new Site([
            $this->signer->answers(200, ['data' => Site::validation('active')]),
            $down,
            $down,
            $down,
        ]);
    }

    public function testTheLastVerifiedAnswerStandsInAndTheMessageSaysSo(): void
    {
        $check = $this->site->check([], ['keys' => $this->signer->keySet()]);
        $this->assertFalse($check->run()->stale);
        $this->site->now += 13 * self::HOUR;
        $status = $check->run();
        $this->assertSame(LicenseStatus::ACTIVE, $status->state);
        $this->assertTrue($status->stale);
        $this->assertSame('2027-01-15T08:00:00.000Z', $status->checkedAt);
        $this->assertTrue($status->needsAttention());
        $this->assertSame(
            'The license server could not be reached; at the last check, on 15 January 2027: '
            . 'Your Example license is active until 12 March 2027.',
            $check->message($status)
        );
        $this->assertSame('notice', $check->messageType($status));
    }

    public function testInTheGraceTheServerIsAskedAgainAfterTheRetryInterval(): void
    {
        $check = $this->site->check(['retry_interval' => 3600], ['keys' => $this->signer->keySet()]);
        $check->run();
        $this->site->now += 13 * self::HOUR;
        $check->run();
        $this->site->now += self::HOUR - 1;
        $check->run();
        $this->assertCount(2, $this->site->transport->requests);
        $this->site->now += 1;
        $this->assertTrue($check->run()->stale);
        $this->assertCount(3, $this->site->transport->requests);
    }

    public function testPastTheGraceTheLicenseCouldNotBeChecked(): void
    {
        $check = $this->site->check([], ['keys' => $this->signer->keySet(), 'offline_grace' => 72 * 3600]);
        $check->run();
        $this->site->now += 72 * self::HOUR + 1;
        $status = $check->run();
        $this->assertSame(LicenseStatus::UNREACHABLE, $status->state);
        $this->assertFalse($status->stale);
        $this->assertSame('Your Example license could not be checked (Connection error: refused). It is checked again later.', $check->message($status));
    }
}
