# One image for both roles: `npm start` (gateway) and `npm run worker` (BullMQ worker).
FROM node:20-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages ./packages
COPY apps ./apps
COPY skills ./skills
COPY hooks ./hooks
RUN npm ci --no-audit --no-fund
ENV HERMES_HOME=/data HERMES_HTTP_HOST=0.0.0.0
VOLUME ["/data"]
EXPOSE 8642
CMD ["npm", "start"]
