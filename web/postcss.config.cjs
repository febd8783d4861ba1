// Mantine's mixins and rem() for the console's own CSS modules.
module.exports = {
  plugins: {
    'postcss-preset-mantine': {},
  },
};
