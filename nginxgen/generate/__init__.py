"""The generator: typed models, validation against a target, rendering, presets, safe output."""
