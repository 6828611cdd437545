<?php

namespace Licensing\Tests\Joomla;

use Licensing\Joomla\LicenseStatus;
use Licensing\LicensingException;
use Licensing\Tests\Joomla\Support\Site;
use Licensing\Tests\Support\FakeTransport;
use PHPUnit\Framework\TestCase;

/** Each state the check finds is told to the administrator in plain words, with its type. */
final class LicenseCheckMessagesTest extends TestCase
{
    /** @return array<string, array{0: mixed, 1: string, 2: string, 3: string}> */
    public function answers(): array
    {
        $mismatch = FakeTransport::json(403, ['error' => [
            'code' => 'PRODUCT_MISMATCH',
            'message' => 'This license key is not valid for this product.',
        ]]);
        $down = new LicensingException(LicensingException::CONNECTION_ERROR, 'Connection error: timed out');
        return [
            'active' => [Site::answer('active'), LicenseStatus::ACTIVE, 'message', 'Your Example license is active until 12 March 2027.'],
            'active, no expiry' => [Site::answer('active', null), LicenseStatus::ACTIVE, 'message', 'Your Example license is active and does not expire.'],
            'expired' => [Site::answer('expired', '2027-01-02T10:00:00.000Z'), LicenseStatus::EXPIRED, 'warning', 'Your Example license expired on 2 January 2027. Renew it to receive updates again.'],
            'suspended' => [Site::answer('suspended'), LicenseStatus::SUSPENDED, 'warning', 'Your Example license is suspended. Updates resume once it is active again.'],
            'revoked' => [Site::answer('revoked'), LicenseStatus::REVOKED, 'error', 'Your Example license has been revoked: this Download Key no longer gives updates.'],
            'cancelled' => [Site::answer('cancelled'), LicenseStatus::CANCELLED, 'warning', 'Your Example license has been cancelled: this Download Key no longer gives updates.'],
            'not found' => [Site::answer('invalid'), LicenseStatus::NOT_FOUND, 'error', 'The Download Key entered for Example was not found. Check it under System > Update Sites.'],
            'another product' => [$mismatch, LicenseStatus::WRONG_PRODUCT, 'error', 'The Download Key entered for Example is the license of another product. Check it under System > Update Sites.'],
            'a status of a newer server' => [Site::answer('paused'), LicenseStatus::INACTIVE, 'warning', 'Your Example license is not active (the server says "paused").'],
            'no answer, none kept' => [$down, LicenseStatus::UNREACHABLE, 'notice', 'Your Example license could not be checked (Connection error: timed out). It is checked again later.'],
        ];
    }

    /** @dataProvider answers */
    public function testEachStateHasItsMessage($answer, string $state, string $type, string $message): void
    {
        $site = new Site([$answer]);
        $check = $site->check();
        $status = $check->run();
        $this->assertSame($state, $status->state);
        $this->assertSame($message, $check->message($status));
        $this->assertSame($type, $check->messageType($status));
        $this->assertSame($state === LicenseStatus::ACTIVE, !$status->needsAttention());
    }

    public function testNoKeyAsksTheAdministratorToEnterIt(): void
    {
        $site = new Site([]);
        $site->downloadKey = '';
        $check = $site->check();
        $status = $check->run();
        $this->assertSame('Enter the Download Key of your Example license under System > Update Sites to receive updates.', $check->message($status));
        $this->assertSame('notice', $check->messageType($status));
    }

    public function testWithoutANameTheServersProductIsNamed(): void
    {
        $site = new Site([Site::answer('active')]);
        $check = $site->check(['name' => '']);
        $this->assertSame('Your Example Pro license is active until 12 March 2027.', $check->message($check->run()));
    }

    public function testTemplatesAndTheDateFormatMayBeTheSites(): void
    {
        $site = new Site([Site::answer('expired')]);
        $check = $site->check([
            'messages' => ['expired' => 'Licence {product} : expirée le {date}.'],
            'date_format' => function (int $time): string {
                return gmdate('d/m/Y', $time);
            },
        ]);
        $this->assertSame('Licence Example : expirée le 12/03/2027.', $check->message($check->run()));
    }
}
