package lab

// The scenes the lab ships: each registers itself with package scenes.
import (
	_ "natslab/scenes/accounts"
	_ "natslab/scenes/contrast"
	_ "natslab/scenes/core" // hello, wildcards, queue-groups
	_ "natslab/scenes/cursor"
	_ "natslab/scenes/kvwatch" // kv-watch
	_ "natslab/scenes/permissions"
	_ "natslab/scenes/replicas"
	_ "natslab/scenes/reqreply"
	_ "natslab/scenes/retention"
	_ "natslab/scenes/streamlog"
)
