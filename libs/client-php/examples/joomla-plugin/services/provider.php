<?php

\defined('_JEXEC') or die;

use Example\Plugin\System\Example\Extension\Example;
use Joomla\CMS\Extension\PluginInterface;
use Joomla\CMS\Plugin\PluginHelper;
use Joomla\DI\Container;
use Joomla\DI\ServiceProviderInterface;
use Joomla\Event\DispatcherInterface;

// The licensing library: libs/client-php, copied into the plugin as lib/.
require_once __DIR__ . '/../lib/loader.php';

return new class () implements ServiceProviderInterface {
    public function register(Container $container): void
    {
        $container->set(
            PluginInterface::class,
            function (Container $container) {
                return new Example(
                    $container->get(DispatcherInterface::class),
                    (array) PluginHelper::getPlugin('system', 'example')
                );
            }
        );
    }
};
