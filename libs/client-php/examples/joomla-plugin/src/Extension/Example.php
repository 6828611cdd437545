<?php

namespace Example\Plugin\System\Example\Extension;

\defined('_JEXEC') or die;

use Joomla\CMS\Factory;
use Joomla\CMS\HTML\HTMLHelper;
use Joomla\CMS\Language\Text;
use Joomla\CMS\Plugin\CMSPlugin;
use Joomla\Component\Installer\Administrator\Helper\InstallerHelper;
use Joomla\Database\DatabaseInterface;
use Joomla\Event\SubscriberInterface;
use Licensing\Joomla\LicenseCheck;
use Licensing\Joomla\ParamsCache;
use Licensing\LicensingClient;

/**
 * Checks this extension's license twice a day, in the back end only, and tells the
 * administrator its state. The key is the Download Key Joomla keeps for the update site
 * (the manifest's <dlid>), so the customer enters it once, under System > Update Sites.
 */
final class Example extends CMSPlugin implements SubscriberInterface
{
    /** The store root and product of this extension in the licensing service. */
    private const STORE_URL = 'https://licensing.example.com';
    private const PRODUCT_ID = 42;

    public static function getSubscribedEvents(): array
    {
        return ['onAfterInitialise' => 'checkLicense'];
    }

    public function checkLicense(): void
    {
        $app = Factory::getApplication();
        $user = $app->getIdentity();
        // A visitor's page never waits for the license server; nor does an AJAX call.
        if (!$app->isClient('administrator') || !$user || $user->guest
            || $app->getInput()->getCmd('format', 'html') !== 'html') {
            return;
        }
        try {
            $check = $this->licenseCheck();
            $status = $check->run();
        } catch (\Throwable $e) {
            // The license check must never break the back end.
            return;
        }
        // The state on the extension pages; a problem on every page, to those who can fix it.
        $onExtensions = in_array($app->getInput()->getCmd('option'), ['com_installer', 'com_plugins'], true);
        if ($onExtensions || ($status->needsAttention() && $user->authorise('core.manage', 'com_installer'))) {
            $text = htmlspecialchars($check->message($status), ENT_QUOTES, 'UTF-8');
            $app->enqueueMessage($text, $check->messageType($status));
        }
    }

    private function licenseCheck(): LicenseCheck
    {
        // The client's offline grace and the check's schedule, kept in this plugin's params.
        $cache = new ParamsCache(
            function (): string {
                return (string) $this->params->get('licensing_state', '');
            },
            function (string $json): void {
                $this->params->set('licensing_state', $json);
                $this->saveParams();
            }
        );
        $options = ['timeout' => 5, 'cache' => $cache];
        // The server's key set (GET {api_base}/keys), when shipped: every answer is verified.
        $keys = __DIR__ . '/../../keys.json';
        if (is_file($keys)) {
            $options['keys'] = (string) file_get_contents($keys);
        }
        $client = new LicensingClient(self::STORE_URL, self::PRODUCT_ID, $options);
        return new LicenseCheck($client, $cache, [$this, 'downloadKey'], [
            'interval' => 12 * 3600,
            'name' => 'Example',
            'date_format' => function (int $time): string {
                return HTMLHelper::_('date', $time, Text::_('DATE_FORMAT_LC3'));
            },
        ]);
    }

    /** The Download Key entered for this extension's update site ('' when none). */
    public function downloadKey(): string
    {
        $key = InstallerHelper::getExtensionDownloadKey('example', 'plugin', 0, 'system');
        return isset($key['value']) ? (string) $key['value'] : '';
    }

    private function saveParams(): void
    {
        $db = Factory::getContainer()->get(DatabaseInterface::class);
        $params = $this->params->toString('JSON');
        $query = $db->getQuery(true)
            ->update($db->quoteName('#__extensions'))
            ->set($db->quoteName('params') . ' = :params')
            ->where($db->quoteName('type') . ' = ' . $db->quote('plugin'))
            ->where($db->quoteName('folder') . ' = ' . $db->quote('system'))
            ->where($db->quoteName('element') . ' = ' . $db->quote('example'))
            ->bind(':params', $params);
        $db->setQuery($query)->execute();
    }
}
